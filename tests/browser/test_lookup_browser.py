"""The lookup page in Chromium: paste, read the first result, follow it; the paste stays text, and
stays in the browser; long logs, stray bytes, and the way forward when nothing matches."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, unquote, urlparse

pytest_plugins = ["browser_site"]

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")
RESULTS = "#errorkb-lookup-results[data-state=done]"


def first_result(page):
    page.wait_for_selector(RESULTS)
    return page.locator("#errorkb-lookup-results > li").first


def search_in_page(page, paste: str) -> None:
    """Fill the lookup page's box with any text (fill() would type it) and submit it."""
    page.evaluate("""q => {
        document.getElementById('errorkb-lookup-q').value = q;
        document.querySelector('#errorkb-lookup-form button').click();
    }""", paste)


def fragment_paste(url: str) -> str:
    fragment = urlparse(url).fragment
    assert fragment.startswith("q=")
    return unquote(fragment[2:])


def test_paste_on_the_landing_page_finds_and_follows_the_error(page, base_url):
    page.goto(base_url + "index.html")
    page.fill("#errorkb-paste-q", "Epoch 3/10\n" + DETAIL + "\nexit code 1")
    page.click(".errorkb-paste button")
    page.wait_for_url("**/lookup.html#q=*")
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-cuda-detail"
    assert first.get_attribute("data-exact") == "true"
    assert first.locator("mark").inner_text().startswith("CUDA out of memory. Tried to allocate 1.71 GiB")
    assert "Line 2 of your paste" in first.inner_text()
    values = first.locator(".errorkb-result-values")  # folded, the values labelled in words
    assert "Asked for1.71 GiB" in values.text_content() and "Device memory6.00 GiB" in values.text_content()
    assert first.locator(".errorkb-result-reading").first.inner_text() == (
        "This process holds 58% of the device's 6.00 GiB; 1.04 GiB is free")
    diagnosis = first.locator(".errorkb-result-diagnosis").first
    assert diagnosis.inner_text().startswith("Asked for 1.71 GiB with 1.04 GiB free, 686.08 MiB short")
    assert diagnosis.locator("a").inner_text() == "Fix 2: Free what you no longer need"
    assert diagnosis.locator("a").get_attribute("href").endswith("errors/demo/demo-cuda-detail.html#fix-2")
    # The fixes as the numbers call for them: the diagnosed ones first, each a link to its own section.
    fixes = first.locator(".errorkb-result-fixes a")
    assert [fixes.nth(i).inner_text() for i in range(fixes.count())] == [
        "Free what you no longer need", "Use a smaller batch"]
    assert fixes.first.get_attribute("href").endswith("#fix-2")
    assert page.locator("#errorkb-lookup-missing").is_hidden()
    first.locator("a.errorkb-result-title").click()
    page.wait_for_url("**/errors/demo/demo-cuda-detail.html")
    assert "DCD: Demo CUDA allocation failed, with the device" in page.title()


def test_the_web_server_never_sees_the_paste(page, base_url, requests_seen):
    marker = "PrivateHost-7f3a9 /home/alice/secret-model"
    paste = f"running on {marker}\n{DETAIL}"
    requests_seen.clear()
    page.goto(base_url + "index.html")
    page.fill("#errorkb-paste-q", paste)
    page.click(".errorkb-paste button")
    assert first_result(page).get_attribute("data-id") == "demo-cuda-detail"
    assert fragment_paste(page.url) == paste  # kept for sharing, after the '#'
    page.reload()  # the shared address: searched again, from the fragment
    assert first_result(page).get_attribute("data-id") == "demo-cuda-detail"
    seen = "\n".join(requests_seen)
    assert "lookup.html" in seen and "errorkb-lookup-index.json" in seen
    for part in ("PrivateHost", "alice", "secret-model", quote("PrivateHost")):
        assert part not in seen


def test_an_old_query_link_still_works_and_moves_to_the_fragment(page, base_url):
    paste = "Maximum peak HBM usage of 28.44GB exceeds HBM limit of\n24.00GB for Trn2."
    page.goto(base_url + "lookup.html?q=" + quote(paste))
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-hbm-limit"
    assert "Line 1-2 of your paste" in first.inner_text()
    assert "Needs 1.19x the memory of Trn2, 4.44 GB over" in first.inner_text()
    assert page.input_value("#errorkb-lookup-q") == paste
    assert urlparse(page.url).query == "" and fragment_paste(page.url) == paste


def test_html_in_the_paste_stays_text(page, base_url):
    page.goto(base_url + "lookup.html")
    paste = ('<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> '
             "CUDA out of memory. Tried to allocate 2.00 MiB")
    page.fill("#errorkb-lookup-q", paste)
    page.click("#errorkb-lookup-form button")
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-cuda-generic"
    assert '<img src=x onerror="window.pwned=1">' in first.locator("pre").inner_text()
    assert page.locator("#errorkb-lookup-results img, #errorkb-lookup-results script").count() == 0
    assert page.evaluate("window.pwned") is None
    assert fragment_paste(page.url) == paste


def test_no_exact_match_is_labelled_closest_and_offers_the_way_forward(page, base_url):
    paste = "CUDA ran out of memory while loading the model"
    page.goto(base_url + "lookup.html#q=" + quote(paste))
    first = first_result(page)
    assert first.get_attribute("data-exact") == "false"
    assert "closest, not exact" in first.inner_text()
    assert "No exact match" in page.locator("#errorkb-lookup-status").inner_text()
    missing = page.locator("#errorkb-lookup-missing")
    assert missing.is_visible()
    assert "private paths" in missing.inner_text()
    assert missing.locator("code.errorkb-new-command").inner_text() == "errorkb new --message-file error.txt"
    report = urlparse(missing.locator("a.errorkb-report").get_attribute("href"))
    assert (report.netloc, report.path) == ("github.com", "/example/errorkb/issues/new")
    fields = parse_qs(report.query)
    assert fields["template"] == ["missing-error.yml"] and fields["paste"] == [paste]
    assert fields["title"] == ["Missing error: " + paste]


def test_the_index_loads_only_when_someone_searches(page, base_url):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(base_url + "lookup.html")
    page.wait_for_load_state("networkidle")
    assert not [u for u in requested if "lookup-index" in u or "lookup-worker" in u]
    page.fill("#errorkb-lookup-q", "Killed")
    page.click("#errorkb-lookup-form button")
    assert first_result(page).get_attribute("data-id") == "demo-killed"
    assert [u for u in requested if "lookup-index" in u]


def test_the_error_on_the_last_line_of_a_200000_line_log_is_found(page, base_url):
    page.set_default_timeout(60_000)  # the text area takes its time to lay out 200,000 lines
    page.goto(base_url + "lookup.html")
    page.evaluate("""detail => {
        const words = ['step', 'loss', 'memory', 'allocated', 'device', 'cuda', 'tensor', 'out', 'of', 'HBM'];
        const lines = [];
        for (let i = 0; i < 199999; i++) lines.push('12:00:' + (i % 60) + ' INFO ' + words[i % 10] + ' ' + words[(i * 7) % 10] + ' ' + i);
        lines.push('[rank0]: ' + detail);
        document.getElementById('errorkb-lookup-q').value = lines.join('\\n');
        document.querySelector('#errorkb-lookup-form button').click();
    }""", DETAIL)
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-cuda-detail" and first.get_attribute("data-exact") == "true"
    assert "Line 200000 of your paste" in first.inner_text()
    assert "too long to keep in the address" not in page.locator("#errorkb-lookup-status").inner_text()


def test_a_paste_beyond_the_limits_is_cut_to_its_end(page, base_url):
    page.set_default_timeout(60_000)
    page.goto(base_url + "lookup.html")
    page.evaluate("""() => {
        const q = document.getElementById('errorkb-lookup-q');
        q.value = ('x'.repeat(99) + '\\n').repeat(110 * 1024) + 'Killed';
        document.querySelector('#errorkb-lookup-form button').click();
    }""")
    assert first_result(page).get_attribute("data-id") == "demo-killed"
    assert "only its last" in page.locator("#errorkb-lookup-status").inner_text()
    assert "q=" not in page.url


def test_stray_bytes_and_invisible_marks_do_not_refuse_or_lose_the_paste(page, base_url):
    page.goto(base_url + "lookup.html")
    search_in_page(page, "step 1\x00\x01\nCUDA out\x00 of \u202ememory.\u200b Tried\u2066 to allocate 2.00 MiB\x7f")
    first = first_result(page)
    assert (first.get_attribute("data-id"), first.get_attribute("data-exact")) == ("demo-cuda-generic", "true")
    assert first.locator("mark").inner_text() == "CUDA out of memory. Tried to allocate 2.00 MiB"
    search_in_page(page, "\x00\x01\x02\x03" * 500)
    page.wait_for_function("() => /binary/.test(document.getElementById('errorkb-lookup-status').textContent)")


def test_the_opensearch_description_points_at_the_lookup_page(page, base_url):
    page.goto(base_url + "index.html")
    href = page.get_attribute('link[rel=search][type="application/opensearchdescription+xml"]', "href")
    xml = page.request.get(base_url + href).text()
    assert 'template="lookup.html#q={searchTerms}"' in xml


def test_a_miss_says_what_kind_of_error_it_looks_like_and_links_its_page(page, base_url):
    page.goto(base_url + "lookup.html")
    search_in_page(page, "fatal: the demo accelerator ran out of memory while warming up")
    page.wait_for_selector(RESULTS)
    assert page.locator("#errorkb-lookup-results").get_attribute("data-kind") == "device"
    triage = page.locator("#errorkb-lookup-triage")
    assert triage.is_visible() and triage.inner_text().startswith("This looks like: Device memory ran out")
    triage.locator("a").click()
    page.wait_for_url("**/docs/device.html")
    page.go_back()
    search_in_page(page, "ModuleNotFoundError: No module named 'whisper'")
    page.wait_for_function("() => document.getElementById('errorkb-lookup-results').dataset.kind === 'other'")
    assert page.locator("#errorkb-lookup-results > li").count() == 0  # no record of that kind to list
    search_in_page(page, DETAIL)
    page.wait_for_function("() => !document.getElementById('errorkb-lookup-results').dataset.kind")
    assert page.locator("#errorkb-lookup-triage").is_hidden()


def test_a_fix_the_numbers_rule_out_is_marked_and_listed_last(page, base_url):
    page.goto(base_url + "lookup.html")
    search_in_page(page, "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 16.00 GiB total "
                         "capacity; 1.00 GiB already allocated; 14.00 GiB free")
    first = first_result(page)
    assert [a.inner_text() for a in first.locator(".errorkb-result-fixes a").all()] == ["Free what you no longer need"]
    ruled_out = first.locator(".errorkb-result-ruled-out")
    assert ruled_out.inner_text() == "Ruled out by your numbers: 1. Use a smaller batch"
    assert ruled_out.locator("a").get_attribute("href").endswith("#fix-1")
    assert "The one allocation is 1.25x the whole device" in first.locator(".errorkb-result-diagnoses").inner_text()


def test_the_back_button_finds_the_paste_still_in_the_landing_page_s_box(page, base_url):
    page.goto(base_url + "index.html")
    page.fill("#errorkb-paste-q", DETAIL)
    page.click(".errorkb-paste button")
    first_result(page)
    page.go_back()
    page.wait_for_url("**/index.html")
    assert page.input_value("#errorkb-paste-q") == DETAIL


def test_the_site_search_answers_an_error_message_with_the_lookup(page, base_url):
    page.goto(base_url + "search.html?q=" + quote("CUDA out of memory. Tried to allocate 2.00 MiB"))
    answer = page.locator(".errorkb-search-answer")
    answer.wait_for()
    record = answer.locator("a.errorkb-search-answer-record").first
    assert record.inner_text() == "Demo CUDA allocation failed"
    assert record.get_attribute("href").endswith("errors/demo/demo-cuda-generic.html")
    assert "first fix: Use a smaller batch" in answer.inner_text()
    page.goto(base_url + "search.html?q=batch")  # words, not an error message: the search alone
    page.wait_for_selector("#search-results .search-summary")
    assert page.locator(".errorkb-search-answer").count() == 0


def test_the_404_page_s_links_find_the_site_under_a_path_the_build_did_not_know(page, demo_site):
    from browser_site import _QuietHandler, serve

    for parent in serve(demo_site.parent, _QuietHandler):  # the site at /<folder>/, built for /
        page.goto(parent + demo_site.name + "/404.html")
        home = page.locator("a.errorkb-404-link").first
        page.wait_for_function("() => document.querySelector('a.errorkb-404-link').getAttribute('href') !== '/index.html'")
        assert home.get_attribute("href") == f"/{demo_site.name}/index.html"
        home.click()
        page.wait_for_url(f"**/{demo_site.name}/index.html")
        break
