"""A tiny errorkb site whose snippets are written in bash and in languages it declares."""

extensions = ["errorkb"]
exclude_patterns = ["_build"]
errorkb_fields = [
    {"name": "platforms", "label": "Platform", "slug": "platform", "many": True, "required": True,
     "values": {"tpu": "TPU", "gpu": "GPU", "neuron": "AWS Neuron", "cpu": "CPU"},
     "badge": "info", "column": True, "filter": True, "index": True},
    {"name": "frameworks", "label": "Framework", "slug": "framework", "many": True, "required": True, "open": True,
     "values": {"pytorch": "PyTorch", "jax": "JAX", "tensorflow": "TensorFlow", "transformers": "Transformers"},
     "badge": "secondary", "filter": True, "index": True, "variants": True},
    {"name": "phase", "label": "Phase", "required": True,
     "values": {"compile-time": "Compile time", "load-time": "Load time", "run-time": "Run time"},
     "badge": "warning", "column": True, "filter": True, "index": True},
    {"name": "category", "label": "Category", "required": True,
     "values": {"device-memory": "Device memory", "on-chip-memory": "On-chip memory",
                "host-memory": "Host memory", "shared-memory": "Shared memory"},
     "badge": "plain", "filter": True, "index": True},
]
errorkb_sections = ["Causes", "Fixes", "Debugging"]

errorkb_languages = {
    "awk": {"command": "awk -f {file}", "suffix": ".awk"},
    # A language that is compiled, then run: the run step is part of its command line.
    "c": {"command": "sh -c 'cc -o snippet {file} && ./snippet'", "suffix": ".c"},
}
