"""gradc's command line: installed with the ``compiler`` extra
(``pip install 'gradc[compiler]'``); ``gradc`` alone only loads built artifacts."""

from importlib.util import find_spec

_missing = [name for name in ("click", "llvmlite") if find_spec(name) is None]
if _missing:
    raise ImportError(
        f"the gradc command needs {' and '.join(_missing)}: pip install 'gradc[compiler]' "
        "(gradc without extras loads built artifacts only)"
    )
