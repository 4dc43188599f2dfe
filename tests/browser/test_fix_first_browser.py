"""From a paste to the fix that applies, on the real site: on a phone, the landing page's paste
lands on the lookup's first answer with the fix its numbers call for in view, and that link opens
the fix on the record's page; on a laptop, a record page shows its fixes as links on the first
screen."""

from __future__ import annotations

from conftest import wait_until

pytest_plugins = ["browser_site"]

#: A real log: a training step that ran out of GPU memory, this process holding nearly all of it.
LOG = """\
Epoch 1:  37%|███▋      | 113/305 [01:02<01:45,  1.82it/s, loss=2.31]
Traceback (most recent call last):
  File "/home/user/train.py", line 88, in <module>
    loss.backward()
  File "/usr/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward
    torch.autograd.backward(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of 23.64 GiB \
of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in use. Of the allocated \
memory 20.10 GiB is allocated by PyTorch, and 512.00 MiB is reserved by PyTorch but unallocated. If reserved but \
unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.
"""
LOWER_THE_BATCH = "Lower the batch size, or accumulate gradients"


def in_view(page, locator) -> bool:
    """Whether the element is wholly inside the window as it is, without scrolling, and seen: not
    under a sticky header or anything else."""
    box = locator.bounding_box()
    size = page.viewport_size
    if box is None or box["y"] < 0 or box["y"] + box["height"] > size["height"] or box["x"] < 0:
        return False
    return locator.evaluate("""e => {
        const r = e.getBoundingClientRect();
        const top = document.elementFromPoint(r.left + 2, r.top + 2);
        return top !== null && (e === top || e.contains(top));
    }""")


def test_on_a_phone_a_pasted_log_shows_the_fix_its_numbers_call_for_on_the_first_screen(phone, real_url):
    phone.goto(real_url + "index.html")
    phone.fill("#errorkb-paste-q", LOG)
    phone.click(".errorkb-paste button")
    phone.wait_for_url("**/lookup.html#q=*")
    phone.wait_for_selector("#errorkb-lookup-results[data-state=done]")
    first = phone.locator("#errorkb-lookup-results > li").first
    assert first.get_attribute("data-id") == "torch-cuda-oom"
    fix = first.locator(".errorkb-result-fixes a").first
    assert fix.inner_text() == LOWER_THE_BATCH  # the step is too big: the numbers point here
    assert "your numbers point here" in first.locator(".errorkb-result-fixes li").first.inner_text()
    assert in_view(phone, first.locator(".errorkb-result-title")) and in_view(phone, fix)
    # Nothing else on the GPU: the fix that says to stop other processes is ruled out, not first.
    assert "Make sure nothing else is using the GPU" in first.locator(".errorkb-result-ruled-out").inner_text()
    assert "95% of the GPU" in first.locator(".errorkb-result-diagnoses").inner_text()
    fix.click()
    phone.wait_for_url("**/errors/pytorch/torch-cuda-oom.html#fix-3")
    phone.wait_for_load_state("load")
    heading = phone.locator("section:has(> #fix-3) > h3")
    assert LOWER_THE_BATCH in heading.inner_text()
    wait_until(lambda: in_view(phone, heading), 5, "the fix's heading to come into view")


def test_on_a_laptop_a_record_page_shows_its_fixes_as_links_on_the_first_screen(page, real_url):
    page.goto(real_url + "errors/pytorch/torch-cuda-oom.html")
    links = page.locator(".errorkb-fix-list a")
    assert links.count() >= 8
    for i in range(links.count()):
        assert in_view(page, links.nth(i)), links.nth(i).inner_text()
    assert links.nth(2).get_attribute("href") == "#fix-3"
    links.nth(2).click()
    assert LOWER_THE_BATCH in page.locator("section:has(> #fix-3) > h3").inner_text()
