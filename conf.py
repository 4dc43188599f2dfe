"""Sphinx configuration of the errorkb site."""

import os

project = "errorkb"
html_title = "errorkb: accelerator errors, memory first"
copyright = "the errorkb authors"

extensions = ["errorkb", "sphinx_design", "sphinx_copybutton"]

# The site is the landing page, the guides and the records; nothing else at the root.
root_doc = "index"
include_patterns = ["index.md", "docs/**", "errors/**"]
exclude_patterns = ["_build", ".venv"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

html_theme = "furo"
# The navigation lists the sources (each leads to its index page) and the guides, not every
# record, so that a page's size does not grow with the catalogue.
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "sidebar/scroll-start.html",
                        "errorkb-sources.html", "sidebar/navigation.html", "sidebar/scroll-end.html"]}
html_static_path: list[str] = []
copybutton_exclude = ".linenos, .gp, .go"

# The records' own fields, beyond the core ones every errorkb site has: where an error happens,
# which frameworks raise it, when, and in which memory.  Each is a badge on a record's page, a
# filter of the catalogue and an index page per value (by/platform/tpu.html ...).
PLATFORMS = {
    "tpu": "TPU", "gpu": "GPU", "neuron": "AWS Neuron", "cpu": "CPU", "mps": "Apple silicon (Metal)",
    "gaudi": "Intel Gaudi", "tenstorrent": "Tenstorrent", "intel-gpu": "Intel GPU",
    "directml": "DirectML (Windows)", "windows": "Windows", "kubernetes": "Kubernetes",
    "docker": "Docker", "notebook": "Hosted notebooks", "npu": "Huawei Ascend NPU", "ipu": "Graphcore IPU",
}

FRAMEWORKS = {
    "pytorch": "PyTorch", "jax": "JAX", "tensorflow": "TensorFlow", "keras": "Keras",
    "numpy": "NumPy", "pandas": "pandas", "cupy": "CuPy", "llama.cpp": "llama.cpp",
    "ollama": "Ollama", "ggml": "GGML", "ttnn": "TT-NN", "tt-metal": "TT-Metalium",
    "vllm": "vLLM", "triton": "Triton", "nccl": "NCCL", "tensorrt": "TensorRT",
    "tensorrt-llm": "TensorRT-LLM", "onnxruntime": "ONNX Runtime", "torch-directml": "torch-directml",
    "directml": "DirectML", "ipex": "Intel Extension for PyTorch", "mlx": "MLX",
    "paddlepaddle": "PaddlePaddle", "ray": "Ray", "tgi": "Text Generation Inference",
    "sglang": "SGLang", "accelerate": "Accelerate", "transformers": "Transformers",
    "bitsandbytes": "bitsandbytes", "deepspeed": "DeepSpeed", "diffusers": "Diffusers",
    "cudf": "cuDF", "rapids": "RAPIDS", "xgboost": "XGBoost", "lightgbm": "LightGBM",
    "scikit-learn": "scikit-learn", "neuronx": "Neuron SDK", "megatron": "Megatron-LM",
    "lightning": "Lightning", "kubernetes": "Kubernetes", "docker": "Docker",
    "colab": "Google Colab", "kaggle": "Kaggle", "hf-spaces": "Hugging Face Spaces",
    "openxla": "OpenXLA", "habana": "Intel Gaudi software", "cuda": "CUDA", "rocm": "ROCm",
    "openvino": "OpenVINO", "mindspore": "MindSpore", "cann": "CANN", "torch-npu": "torch_npu",
    "poplar": "Poplar", "poptorch": "PopTorch", "popart": "PopART", "dask": "Dask", "ctranslate2": "CTranslate2",
    "faster-whisper": "faster-whisper", "whisperx": "WhisperX", "argos-translate": "Argos Translate", "peft": "PEFT",
    "flash-attn": "FlashAttention", "xformers": "xFormers", "torchvision": "torchvision", "numba": "Numba",
    "caffe": "Caffe", "caffe2": "Caffe2", "cntk": "CNTK", "cmake": "CMake", "horovod": "Horovod", "go": "Go",
    "fastertransformer": "FasterTransformer", "llama-cpp-python": "llama-cpp-python", "localai": "LocalAI",
    "mlx-lm": "MLX LM", "mlx-swift": "MLX Swift", "mlx-vlm": "MLX-VLM", "modin": "Modin", "polars": "Polars",
    "onnx": "ONNX", "onnxruntime-genai": "ONNX Runtime GenAI", "stable-diffusion.cpp": "stable-diffusion.cpp",
    "whisper.cpp": "whisper.cpp", "synapseml": "SynapseML", "tensorflow-neuron": "TensorFlow Neuron",
    "torch-neuron": "PyTorch Neuron", "torch-sparse": "PyTorch Sparse", "tokenizers": "Tokenizers",
    "vulkan": "Vulkan", "lmdb": "LMDB", "distributed-llama": "Distributed Llama", "tvm": "Apache TVM",
    "mlc-llm": "MLC LLM", "mmcv": "MMCV", "detectron2": "Detectron2", "flax": "Flax", "haiku": "Haiku",
    "optax": "Optax", "equinox": "Equinox", "numpyro": "NumPyro", "tensorflow-probability": "TensorFlow Probability",
    "levanter": "Levanter", "maxtext": "MaxText", "tf-object-detection": "TF Object Detection API",
}

PHASES = {"compile-time": "Compile time", "load-time": "Load time", "run-time": "Run time"}
# Memory first; then the other kinds of accelerator error people paste beside them.
CATEGORIES = {
    "device-memory": "Device memory", "on-chip-memory": "On-chip memory",
    "host-memory": "Host memory", "shared-memory": "Shared memory",
    "unsupported-operation": "Unsupported operation", "numerics-dtypes": "Numerics and data types",
    "shapes-devices": "Shapes and devices", "compile-time-limit": "Compiler limits",
    "compiler-error": "Compiler errors", "kernel-fault": "Kernel faults and asserts",
    "collective-communication": "Collective communication", "driver-installation": "Driver and installation",
    "hardware-fault": "Hardware faults", "status-class": "Status classes",
}

errorkb_fields = [
    {"name": "platforms", "label": "Platform", "slug": "platform", "values": PLATFORMS, "many": True,
     "required": True, "badge": "info", "column": True, "filter": True, "index": True},
    # Any slug is accepted; these have labels.  A fix's '####' headings naming one become tabs.
    {"name": "frameworks", "label": "Framework", "slug": "framework", "values": FRAMEWORKS, "open": True,
     "many": True, "required": True, "badge": "secondary", "filter": True, "index": True, "variants": True},
    {"name": "phase", "label": "Phase", "values": PHASES, "required": True, "badge": "warning",
     "column": True, "filter": True, "index": True},
    {"name": "category", "label": "Category", "values": CATEGORIES, "required": True, "badge": "plain",
     "filter": True, "index": True},
]
errorkb_sections = ["Causes", "Fixes", "Debugging"]

# What a paste that matches no record is told it looks like, by the phrases it holds, with the
# page that says what to check first; the closest records shown are then of that kind only.
NOT_MEMORY = [c for c in CATEGORIES if not c.endswith("-memory")]
errorkb_kinds = [
    {"name": "killed", "title": "A process killed for using too much memory", "page": "docs/triage/killed",
     "cues": ["Killed", "OOMKilled", "oom-kill", "oom_kill", "oom-killer", "Killed process", "oom_reaper",
              "exit code 137", "exit code: 137", "exit status 137", "exited with code 137", "return code -9",
              "signal 9", "SIGKILL", "killed by signal", "memory cgroup out of memory", "KilledWorker",
              "Worker exceeded", "memory budget", "status code 137", "Kill process", "Mem-Info", "active_anon",
              "total-vm", "anon-rss"],
     "records": {"source": ["host", "containers", "ray", "notebooks", "dask", "slurm"]}},
    {"name": "shared-memory", "title": "Shared memory (/dev/shm) ran out", "page": "docs/triage/shared-memory",
     "cues": ["/dev/shm", "shm", "shared memory segment", "shm_open", "Bus error", "shared memory limit",
              "out of shared memory", "insufficient shared memory", "unable to mmap", "No space left on device",
              "ipc=host", "shm-size", "shm_size", "file_descriptor", "vm.max_map_count"],
     "records": {"category": ["shared-memory"]}},
    {"name": "on-chip-memory", "title": "An on-chip memory limit was exceeded (compile or launch time)",
     "page": "docs/triage/on-chip-memory",
     "cues": ["out of resource", "OutOfResources", "too much shared data", "shared memory per block",
              "too many resources requested for launch", "Hardware limit", "SMEM", "VMEM", "scoped vmem",
              "SBUF", "state buffer", "L1 buffer", "L1 size", "circular buffer", "circular buffers",
              "on-chip memory", "Out of memory on tile", "tile memory", "scratchpad"],
     "records": {"category": ["on-chip-memory"]}},
    {"name": "device-memory", "title": "The accelerator's memory (GPU, TPU, NPU) ran out",
     "page": "docs/triage/device-memory",
     "cues": ["out of memory", "out_of_memory", "OutOfMemoryError", "OOM", "CUDA_ERROR_OUT_OF_MEMORY",
              "cudaErrorMemoryAllocation", "hipErrorOutOfMemory", "RESOURCE_EXHAUSTED", "Resource exhausted",
              "ResourceExhaustedError", "GPU memory", "device memory", "VRAM", "HBM", "Ran out of memory",
              "failed to allocate", "Failed to allocate", "allocation failed", "OOM when allocating", "KV cache",
              "gpu_memory_utilization", "unified memory", "Insufficient Memory", "CUBLAS_STATUS_ALLOC_FAILED",
              "CUDNN_STATUS_ALLOC_FAILED", "RMM", "memory space", "exceeds the memory", "PT_DEVMEM",
              "NRT_RESOURCE", "Tried to allocate", "cudaMalloc", "hipMalloc", "cuMemAlloc",
              "Not enough free memory on device", "cuda runtime error (2)", "CL_MEM_OBJECT_ALLOCATION_FAILURE",
              "CL_OUT_OF_RESOURCES", "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
              "VK_ERROR_OUT_OF_DEVICE_MEMORY", "ACL_ERROR_RT_MEMORY_ALLOCATION"],
     "records": {"category": ["device-memory"]}},
    {"name": "host-memory", "title": "The host (CPU) ran out of memory", "page": "docs/triage/host-memory",
     "cues": ["MemoryError", "bad_alloc", "std::bad_alloc", "Cannot allocate memory", "Errno 12", "ENOMEM",
              "Unable to allocate", "Could not allocate memory", "DefaultCPUAllocator", "not enough memory", "malloc", "posix_memalign",
              "mkl_malloc", "paging file", "host memory", "CPU memory", "system memory", "out of host memory",
              "virtual memory", "mmap failed", "insufficient memory", "memory allocation failed", "not enough space",
              "bad allocation", "CL_OUT_OF_HOST_MEMORY", "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
              "UR_RESULT_ERROR_OUT_OF_HOST_MEMORY", "VK_ERROR_OUT_OF_HOST_MEMORY"],
     "records": {"category": ["host-memory"]}},
    {"name": "not-memory", "title": "Not a memory error", "page": "docs/triage/not-memory",
     "records": {"category": NOT_MEMORY}},
]
# Labels of the sources (who raises the error: the folder of a record); any other is shown as written.
errorkb_source_labels = {
    "xla": "XLA", "neuron": "AWS Neuron", "pytorch": "PyTorch", "cuda": "CUDA", "tensorflow": "TensorFlow",
    "vllm": "vLLM", "host": "Host operating system", "python": "Python", "ggml": "GGML",
    "habana": "Intel Gaudi", "tenstorrent": "Tenstorrent", "triton": "Triton", "nccl": "NCCL",
    "tensorrt": "TensorRT", "onnxruntime": "ONNX Runtime", "directml": "DirectML", "mlx": "MLX",
    "cpp": "Native runtimes (C/C++, Rust, Go)", "windows": "Windows", "notebooks": "Hosted notebooks",
    "containers": "Containers", "ray": "Ray", "paddle": "PaddlePaddle", "llm-servers": "LLM servers",
    "huggingface": "Hugging Face libraries", "hardware": "GPU hardware", "openvino": "OpenVINO",
    "ascend": "Huawei Ascend", "graphcore": "Graphcore", "dask": "Dask", "mkl": "Intel MKL", "pandas": "pandas",
    "bitsandbytes": "bitsandbytes", "rapids": "RAPIDS", "flash-attn": "FlashAttention", "rocm": "ROCm",
    "deepspeed": "DeepSpeed",
    "mindspore": "MindSpore",
    "lightgbm": "LightGBM",
    "xformers": "xFormers",
    "tvm": "Apache TVM",
    "triton-server": "Triton Inference Server",
    "ctranslate2": "CTranslate2 (faster-whisper)",
    "whisper": "OpenAI Whisper",
    "intel-xpu": "Intel GPU (XPU, SYCL)",
    "opencl": "OpenCL",
    "catboost": "CatBoost",
    "wgpu": "wgpu (WebGPU)",
    "cupy": "CuPy",
    "whisperer": "Whisperer",
    "xgboost": "XGBoost",
    "jvm": "Java virtual machine",
    "spark": "Apache Spark",
    "numba": "Numba",
    "dgl": "DGL (Deep Graph Library)",
    "faiss": "Faiss",
    "vulkan": "Vulkan",
    "slurm": "Slurm",
    "horovod": "Horovod",
    "mps": "Apple MPS (Metal Performance Shaders)",
    "transformer-engine": "Transformer Engine",
    "milvus": "Milvus",
    "sd-webui": "Stable Diffusion web UI (AUTOMATIC1111 and forks)",
    "openmmlab": "OpenMMLab (mmcv, mmdetection, mmsegmentation ...)",
}

# Every page says what its facts were checked against (its `checked` field), and `errorkb check`
# lists the pages whose check is more than a year old for review.
errorkb_require_checked = True
errorkb_checked_max_age = 365

# The vendors' code catalogues: the site shows which codes have a page and invites the rest.
errorkb_code_catalogues = {"neuron-compiler": "catalogues/neuron-compiler.yaml", "openxla": "catalogues/openxla.yaml",
                           "nvidia-xid": "catalogues/nvidia-xid.yaml"}

# The weekly link check (make linkcheck, .github/workflows/links.yml): GitHub answers many requests
# from one address slowly, and anchors in its pages are made by scripts.
linkcheck_timeout = 30
linkcheck_workers = 4
linkcheck_anchors = False
linkcheck_rate_limit_timeout = 600
linkcheck_ignore = [r"https?://(localhost|127\.0\.0\.1)"]

# Absolute URLs (sitemap.xml, canonical links, Open Graph) need the public address of the site.
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL", "")
# The repository, for the contributor's page, the pages' edit links and the missing-error form
# (the publishing workflow gives it with -D; Read the Docs in its environment).
_clone = os.environ.get("READTHEDOCS_GIT_CLONE_URL", "")
errorkb_repository_url = _clone.removesuffix(".git") if _clone.startswith("https://") else ""
html_favicon = "docs/favicon.svg"

# Snippets may require GPUs, TPUs and Neuron devices (`:requires: cuda, gpu-memory>=16G`).
errorkb_hardware = "errorkb.examples.accelerators"
# Read the Docs builds have no sandbox: their previews show the pages with the snippets not run,
# and the pull request's `make html` check runs them (CONTRIBUTING.md says where to see results).
errorkb_run_examples = not os.environ.get("READTHEDOCS")

# The site's own words where the extension speaks of the site.
errorkb_llms_summary = (
    "A knowledge base of the errors that ML accelerators and their software raise, memory errors first "
    "(XLA on TPUs, AWS Neuron, PyTorch, CUDA, NCCL, TensorFlow, the host), with the whole code catalogues "
    "of AWS Neuron's compiler and OpenXLA. Each error page gives the exact messages, the causes, the fixes "
    "to try in order, and how to tell which cause applies."
)
errorkb_opensearch_description = "Find an accelerator error by its message"
errorkb_paste_placeholder = "RESOURCE_EXHAUSTED: ... Used 49.34G of 32.00G hbm ..."
