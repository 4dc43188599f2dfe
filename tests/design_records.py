"""A record that uses every sphinx-design component errorkb builds: fixes with framework variants,
more examples than are shown open, and a whole log as an example."""

from __future__ import annotations

from conftest import Project, record_text

LOG = "\n".join(f"step {n}: loss 0.{n:02d}" for n in range(20)) + "\nDemoError: could not allocate 9.00 GiB on device 1"

VARIANTS = """\
### Use a smaller batch

Fewer samples per step need fewer activations.

#### PyTorch

Pass `batch_size=8` to the `DataLoader`.

#### JAX

Slice the batch before `jax.jit` sees it.

### Free what you no longer need

Delete large tensors before the next allocation.

#### PyTorch

Call `del` on the tensor, then `torch.cuda.empty_cache()`.

#### jax

Call `.delete()` on the array.

#### Why it helps

Memory that is still referenced cannot be reused.
"""


def design_record(project: Project) -> None:
    """``errors/demo/demo-oom.md`` with variants, six examples and a long log."""
    text = record_text()
    examples = "".join(f'      - "DemoError: could not allocate {n}.00 GiB on device 0"\n' for n in range(3, 7))
    log = "      - |-\n" + "".join(f"        {line}\n" for line in LOG.splitlines())
    text = text.replace("related:", examples + log + "related:")
    start, end = text.index("### Use a smaller batch"), text.index("## Debugging")
    project.add_record(text=text[:start] + VARIANTS + "\n" + text[end:])
