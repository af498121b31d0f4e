"""Loops: for over range(n), range(a, b), range(a, b, c) (constant and runtime steps,
negative steps, step 0 raising ValueError), while, break, continue, early returns, nested
loops, reassigning the loop variable.

No math functions here: every float result must match CPython bit for bit.
Loop trip counts stay <= ~1000 per call for every input in DOMAINS.
"""

import gradc
from gradc import f64, i64

DOMAINS = {
    "sum_range": {"n": (-5, 200)},
    "range_runtime_step": {"c": (-6, 6)},
    "negative_step": {"n": (-3, 150)},
    "negative_step_runtime": {"step": (-7, -1)},
    "nested_loops": {"n": (0, 30), "m": (0, 30)},
    "triangle_count": {"n": (-2, 40)},
    "collatz_steps": {"n": (1, 300)},
    "while_break_continue": {"n": (-5, 200)},
    "first_square_above": {"n": (0, 60), "k": (-10, 2000)},
    "early_return_float": {"x": (-10.0, 12000.0)},
    "smallest_divisor": {"n": (2, 400)},
    "is_prime": {"n": (-5, 400)},
    "loop_var_reassigned": {"n": (0, 100)},
    "float_recurrence": {"n": (0, 80)},
    "newton_sqrt": {"x": (0.0, 1e6)},
    "nested_break": {"n": (0, 30)},
    "countdown_while": {"n": (-5, 200)},
    "continue_odd": {"n": (0, 200)},
    "sum_digits": {"n": (-100000, 100000)},
    "fib_iter": {"n": (0, 90)},
    "factorial": {"n": (0, 20)},
    "while_nested_continue": {"n": (0, 25)},
    "loop_else_like": {"n": (0, 50), "target": (-5, 60)},
    "zero_trip_keeps_value": {"n": (-3, 3)},
}


@gradc.export
def sum_range(n: i64) -> i64:
    s = 0
    for i in range(n):
        s += i
    return s


@gradc.export
def sum_squares_ab(a: i64, b: i64) -> i64:
    s = 0
    for i in range(a, b):
        s += i * i
    return s


@gradc.export
def range_const_step(a: i64, b: i64) -> i64:
    s = 0
    for i in range(a, b, 3):
        s = s * 7 % 10007 + i
    return s


@gradc.export
def range_runtime_step(a: i64, b: i64, c: i64):
    # c == 0 raises ValueError in range()
    s = 0
    count = 0
    for i in range(a, b, c):
        s += i
        count += 1
    return s, count


@gradc.export
def negative_step(n: i64) -> i64:
    s = 0
    for i in range(n, -1, -1):
        s = (s * 3 + i) % 1000003
    return s


@gradc.export
def negative_step_runtime(a: i64, b: i64, step: i64) -> i64:
    s = 0
    for i in range(a, b, step):
        s = s * 2 % 999983 - i
    return s


@gradc.export
def range_expr_bounds(a: i64, b: i64) -> i64:
    s = 0
    for i in range(a * 2, b - 1, -2):
        s += i
    return s


@gradc.export
def nested_loops(n: i64, m: i64) -> i64:
    s = 0
    for i in range(n):
        for j in range(m):
            if (i + j) % 3 == 0:
                s += i * j
    return s


@gradc.export
def triangle_count(n: i64) -> i64:
    c = 0
    for i in range(n):
        for _j in range(i):
            c += 1
    return c


@gradc.export
def collatz_steps(n: i64) -> i64:
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@gradc.export
def while_break_continue(n: i64) -> i64:
    i = 0
    s = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 3 == 0:
            continue
        s += i
    return s


@gradc.export
def first_square_above(n: i64, k: i64) -> i64:
    for i in range(n):
        if i * i > k:
            return i
    return -1


@gradc.export
def early_return_float(x: f64) -> i64:
    for i in range(120):
        if i * i > x:
            return i
    return -1


@gradc.export
def smallest_divisor(n: i64) -> i64:
    for d in range(2, n):
        if n % d == 0:
            return d
    return n


@gradc.export
def is_prime(n: i64) -> bool:
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


@gradc.export
def loop_var_reassigned(n: i64) -> i64:
    # assigning the loop variable does not change the iteration
    s = 0
    for i in range(n):
        i = i * 2
        s += i
    return s


@gradc.export
def float_recurrence(x: f64, n: i64) -> f64:
    s = 0.0
    for i in range(n):
        s = s * 0.5 + x - i
    return s


@gradc.export
def newton_sqrt(x: f64) -> f64:
    # x == 0.0 divides 0.0 by 0.0: ZeroDivisionError
    g = x
    for _ in range(60):
        g = 0.5 * (g + x / g)
    return g


@gradc.export
def nested_break(n: i64) -> i64:
    s = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s += j
    return s


@gradc.export
def countdown_while(n: i64) -> i64:
    s = 0
    while n > 0:
        n -= 2
        s += n
    return s


@gradc.export
def continue_odd(n: i64) -> i64:
    s = 0
    for i in range(n):
        if i % 2:
            continue
        s += i
    return s


@gradc.export
def sum_digits(n: i64) -> i64:
    if n < 0:
        n = -n
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


@gradc.export
def fib_iter(n: i64) -> i64:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@gradc.export
def factorial(n: i64) -> i64:
    r = 1
    i = n
    while i > 1:
        r *= i
        i -= 1
    return r


@gradc.export
def while_nested_continue(n: i64) -> i64:
    i = 0
    total = 0
    while i < n:
        i += 1
        j = 0
        while j < i:
            j += 1
            if (i * j) % 4 == 1:
                continue
            total += j
        if total > 500:
            break
    return total


@gradc.export
def loop_else_like(n: i64, target: i64) -> i64:
    found = -1
    i = 0
    while i < n:
        if i == target:
            found = i
            break
        i += 1
    return found * 1000 + i


@gradc.export
def zero_trip_keeps_value(n: i64, x: f64) -> f64:
    y = x
    for i in range(n):
        y = y * 2.0 + i
    return y


@gradc.export
def float_while(x: f64) -> i64:
    count = 0
    while x > 1.0:
        x /= 3.0
        count += 1
    return count
