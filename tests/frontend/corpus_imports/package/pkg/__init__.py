from .util import clamp as clamp

UNIT = 1.0
