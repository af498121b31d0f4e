from even import is_even

import gradc
from gradc import i64


@gradc.export
def parity(n: i64) -> bool:
    return is_even(n)


CASES = {"parity": [(0,), (1,), (2,), (7,), (10,)]}
