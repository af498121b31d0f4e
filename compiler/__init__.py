"""gradc's compiler: installed with the ``compiler`` extra (``pip install 'gradc[compiler]'``);
``gradc`` alone only loads built artifacts."""

from importlib.util import find_spec

if find_spec("llvmlite") is None:
    raise ImportError(
        "gradc's compiler needs llvmlite: pip install 'gradc[compiler]' "
        "(gradc without extras loads built artifacts only)"
    )
