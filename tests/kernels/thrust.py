"""jit.thrust (cupyx.jit.thrust's spelling): every algorithm over iterators
of rows (x[i].begin(), C and F order, so contiguous and strided), of whole
1-d arrays, of shared memory (smem, smem + k), and constant / counting
iterators; results returned as numbers, iterators (it - a.begin()) and
pairs.  Each thread works on its own row, as cupyx.jit's tests do."""
import numpy as np

from cujit import jit

from ._common import poison, rand

T = jit.thrust


def _rows(order, dt=np.int32, shape=(6, 9), lo=0, hi=5):
    a = rand(shape, dt, lo, hi)
    return np.asfortranarray(a) if order == "F" else a


@jit.rawkernel()
def row_ops(x, y, z, n):
    """copy, adjacent_difference, inclusive / exclusive scans, fill of a tail,
    sequence, count, find, reduce, inner_product, is_sorted, equal"""
    i = jit.threadIdx.x
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        c = z[i]
        T.inclusive_scan(T.seq, a.begin(), a.end(), b.begin())
        T.adjacent_difference(T.device, b.begin(), b.end(), c.begin())
        r = n[i]
        r[0] = T.count(T.device, a.begin(), a.end(), 2)
        r[1] = T.find(T.device, a.begin(), a.end(), 3) - a.begin()
        r[2] = T.reduce(T.device, a.begin(), a.end())
        r[3] = T.reduce(T.device, a.begin(), a.end(), 100)
        r[4] = T.inner_product(T.device, a.begin(), a.end(), b.begin(), 1)
        r[5] = T.is_sorted(T.device, b.begin(), b.end())
        r[6] = T.equal(T.device, a.begin(), a.end(), c.begin())
        r[7] = T.is_sorted_until(T.device, a.begin(), a.end()) - a.begin()


def _row_ops_ref(x, y, z, n):
    xs = x.astype(np.int64)
    cs = np.cumsum(xs, axis=1)
    r = np.zeros(n.shape, n.dtype)
    for i, row in enumerate(xs):
        hits = np.nonzero(row == 3)[0]
        desc = np.nonzero(row[1:] < row[:-1])[0]
        r[i] = [(row == 2).sum(), hits[0] if hits.size else row.size, row.sum(), row.sum() + 100,
                1 + (row * cs[i]).sum(), 1, 1, desc[0] + 1 if desc.size else row.size]
    return {1: cs.astype(y.dtype), 2: x.copy(), 3: r}


@jit.rawkernel()
def row_scans(x, y, z):
    """exclusive_scan with and without init, sequence, fill, reverse(_copy)"""
    i = jit.threadIdx.x
    if i < x.shape[0]:
        a = x[i]
        T.exclusive_scan(T.seq, a.begin(), a.end(), y[i].begin(), 10)
        T.exclusive_scan(T.seq, a.begin(), a.end(), z[i].begin())
        T.reverse(T.device, z[i].begin(), z[i].end())


def _row_scans_ref(x, y, z):
    cs = np.cumsum(x.astype(np.int64), axis=1)
    ex = np.concatenate([np.zeros((x.shape[0], 1), np.int64), cs[:, :-1]], axis=1)
    return {1: (ex + 10).astype(y.dtype), 2: ex[:, ::-1].astype(z.dtype)}


@jit.rawkernel()
def row_sorts(x, k, v, s, sv):
    """sort, stable_sort, sort_by_key, stable_sort_by_key of each row"""
    i = jit.threadIdx.x
    if i < x.shape[0]:
        T.sort(T.device, x[i].begin(), x[i].end())
        T.stable_sort(T.device, s[i].begin(), s[i].end())
        T.sort_by_key(T.device, k[i].begin(), k[i].end(), v[i].begin())
        T.stable_sort_by_key(T.seq, sv[i].begin(), sv[i].end(), v[i].begin())


def _distinct_keys(shape):
    rng = np.random.default_rng(7)
    return np.stack([rng.permutation(shape[1]) for _ in range(shape[0])]).astype(np.int32)


def _row_sorts_ref(x, k, v, s, sv):
    order = np.argsort(k, axis=1)
    v1 = np.take_along_axis(v, order, axis=1)
    order2 = np.argsort(sv, axis=1, kind="stable")
    return {0: np.sort(x, axis=1), 1: np.sort(k, axis=1), 2: np.take_along_axis(v1, order2, 1),
            3: np.sort(s, axis=1), 4: np.sort(sv, axis=1)}


@jit.rawkernel()
def searches(x, v, lo, hi, found, lov, hiv, eq):
    """lower_bound, upper_bound, binary_search (one value and vectors),
    equal_range, over a sorted 1-d array"""
    i = jit.threadIdx.x
    if i < v.shape[0]:
        lo[i] = T.lower_bound(T.seq, x.begin(), x.end(), v[i, 0]) - x.begin()
        hi[i] = T.upper_bound(T.seq, x.begin(), x.end(), v[i, 0]) - x.begin()
        found[i] = T.binary_search(T.seq, x.begin(), x.end(), v[i, 1])
        T.lower_bound(T.seq, x.begin(), x.end(), v[i].begin(), v[i].end(), lov[i].begin())
        T.upper_bound(T.seq, x.begin(), x.end(), v[i].begin(), v[i].end(), hiv[i].begin())
        first, last = T.equal_range(T.seq, x.begin(), x.end(), v[i, 2])
        eq[i] = (last - first) * 1000 + (first - x.begin())


def _searches_args():
    x = np.sort(rand(40, np.int32, 0, 30))
    return (x, rand((8, 5), np.int32, -2, 32), poison(8, np.int64), poison(8, np.int64),
            poison(8, np.bool_), poison((8, 5), np.int32), poison((8, 5), np.int32),
            poison(8, np.int64))


def _searches_ref(x, v, lo, hi, found, lov, hiv, eq):
    l3 = np.searchsorted(x, v[:, 2], "left")
    return {2: np.searchsorted(x, v[:, 0], "left"), 3: np.searchsorted(x, v[:, 0], "right"),
            4: np.isin(v[:, 1], x), 5: np.searchsorted(x, v, "left").astype(np.int32),
            6: np.searchsorted(x, v, "right").astype(np.int32),
            7: (np.searchsorted(x, v[:, 2], "right") - l3) * 1000 + l3}


@jit.rawkernel()
def removes(x, r, out, sizes):
    """remove, remove_copy, replace, replace_copy, unique of one array"""
    n1 = T.remove_copy(T.device, x.begin(), x.end(), r.begin(), 1) - r.begin()
    T.replace_copy(T.device, x.begin(), x.end(), out.begin(), 2, 99)
    T.replace(T.device, out.begin(), out.end(), 0, -5)
    sizes[0] = n1
    sizes[1] = T.remove(T.device, x.begin(), x.end(), 3) - x.begin()
    sizes[2] = T.unique(T.device, r.begin(), r.begin() + n1) - r.begin()


def _removes_ref(x, r, out, sizes):
    kept = x[x != 1]
    u = kept[np.r_[True, kept[1:] != kept[:-1]]] if kept.size else kept
    r2 = r.copy()
    r2[:kept.size] = kept
    r2[:u.size] = u
    no3 = x[x != 3]
    x2 = x.copy()
    x2[:no3.size] = no3
    o = np.where(x == 2, 99, x)
    o = np.where(o == 0, -5, o)
    return {0: x2, 1: r2, 2: o.astype(out.dtype),
            3: np.array([kept.size, no3.size, u.size], sizes.dtype)}


@jit.rawkernel()
def by_key(keys, vals, ko, vo, inc, exc, sizes):
    """reduce_by_key, inclusive / exclusive scan by key, unique_by_key"""
    a, b = T.reduce_by_key(T.device, keys.begin(), keys.end(), vals.begin(), ko.begin(),
                           vo.begin())
    sizes[0] = a - ko.begin()
    sizes[1] = b - vo.begin()
    T.inclusive_scan_by_key(T.device, keys.begin(), keys.end(), vals.begin(), inc.begin())
    T.exclusive_scan_by_key(T.device, keys.begin(), keys.end(), vals.begin(), exc.begin(), 7)
    u = T.unique_by_key(T.device, keys.begin(), keys.end(), vals.begin())
    sizes[2] = u[0] - keys.begin()
    sizes[3] = u[1] - vals.begin()


def _runs(keys):
    starts = np.r_[0, np.nonzero(keys[1:] != keys[:-1])[0] + 1]
    return starts, np.r_[starts[1:], keys.size]


def _by_key_ref(keys, vals, ko, vo, inc, exc, sizes):
    s, e = _runs(keys)
    ko2, vo2, inc2, exc2 = ko.copy(), vo.copy(), inc.copy(), exc.copy()
    ko2[:s.size] = keys[s]
    vo2[:s.size] = [vals[a:b].sum() for a, b in zip(s, e)]
    for a, b in zip(s, e):
        c = np.cumsum(vals[a:b])
        inc2[a:b] = c
        exc2[a:b] = 7 + c - vals[a:b]
    k2, v2 = keys.copy(), vals.copy()
    k2[:s.size] = keys[s]
    v2[:s.size] = vals[s]
    n = s.size
    return {0: k2, 1: v2, 2: ko2, 3: vo2, 4: inc2, 5: exc2,
            6: np.array([n, n, n, n], sizes.dtype)}


@jit.rawkernel()
def set_ops(a, b, va, vb, out, ko, vo, sizes):
    """the four set operations and their _by_key forms on sorted arrays"""
    o = out[0]
    sizes[0] = T.set_difference(T.device, a.begin(), a.end(), b.begin(), b.end(),
                                o.begin()) - o.begin()
    o = out[1]
    sizes[1] = T.set_intersection(T.device, a.begin(), a.end(), b.begin(), b.end(),
                                  o.begin()) - o.begin()
    o = out[2]
    sizes[2] = T.set_symmetric_difference(T.device, a.begin(), a.end(), b.begin(), b.end(),
                                          o.begin()) - o.begin()
    o = out[3]
    sizes[3] = T.set_union(T.device, a.begin(), a.end(), b.begin(), b.end(),
                           o.begin()) - o.begin()
    k0, v0 = T.set_difference_by_key(T.device, a.begin(), a.end(), b.begin(), b.end(),
                                     va.begin(), vb.begin(), ko[0].begin(), vo[0].begin())
    sizes[4] = (k0 - ko[0].begin()) * 100 + (v0 - vo[0].begin())
    k1, v1 = T.set_intersection_by_key(T.device, a.begin(), a.end(), b.begin(), b.end(),
                                       va.begin(), ko[1].begin(), vo[1].begin())
    sizes[5] = (k1 - ko[1].begin()) * 100 + (v1 - vo[1].begin())
    k2, v2 = T.set_symmetric_difference_by_key(T.device, a.begin(), a.end(), b.begin(),
                                               b.end(), va.begin(), vb.begin(), ko[2].begin(),
                                               vo[2].begin())
    sizes[6] = (k2 - ko[2].begin()) * 100 + (v2 - vo[2].begin())
    k3, v3 = T.set_union_by_key(T.device, a.begin(), a.end(), b.begin(), b.end(), va.begin(),
                                vb.begin(), ko[3].begin(), vo[3].begin())
    sizes[7] = (k3 - ko[3].begin()) * 100 + (v3 - vo[3].begin())


def _set_args():
    rng = np.random.default_rng(11)
    a = np.sort(rng.choice(30, 12, replace=False)).astype(np.int64)
    b = np.sort(rng.choice(30, 9, replace=False)).astype(np.int64)
    return (a, b, rand(12, np.int64, 0, 50), rand(9, np.int64, 60, 99), poison((4, 21), np.int64),
            poison((4, 21), np.int64), poison((4, 21), np.int64), poison(8, np.int64))


def _set_ref(a, b, va, vb, out, ko, vo, sizes):
    da, db = dict(zip(a, va)), dict(zip(b, vb))
    sets = [(np.setdiff1d(a, b), da), (np.intersect1d(a, b), da),
            (np.setxor1d(a, b), {**db, **da}), (np.union1d(a, b), {**db, **da})]
    out2, ko2, vo2 = out.copy(), ko.copy(), vo.copy()
    sz = np.zeros(8, np.int64)
    for k, (s, src) in enumerate(sets):
        out2[k, :s.size] = s
        ko2[k, :s.size] = s
        vo2[k, :s.size] = [src[e] for e in s]
        sz[k] = s.size
        sz[4 + k] = s.size * 101
    return {4: out2, 5: ko2, 6: vo2, 7: sz}


@jit.rawkernel()
def moves(x, m, g, sc, sw1, sw2, rc):
    """gather, scatter, swap_ranges, reverse_copy, copy into a strided view"""
    i = jit.threadIdx.x
    if i < m.shape[0]:
        T.gather(T.device, m[i].begin(), m[i].end(), x.begin(), g[i].begin())
        T.swap_ranges(T.device, sw1[i].begin(), sw1[i].end(), sw2[i].begin())
        T.reverse_copy(T.device, x.begin(), x.end(), rc[i, ::2].begin())
    if i == 0:
        T.scatter(T.device, x.begin(), x.end(), m[0].begin(), sc.begin())


def _moves_args():
    rng = np.random.default_rng(5)
    m = np.stack([rng.permutation(10) for _ in range(4)]).astype(np.int32)
    return (rand(10, np.float32), m, poison((4, 10), np.float32), poison(10, np.float32),
            rand((4, 6), np.int16), rand((4, 6), np.int16), rand((4, 20), np.float32))


def _moves_ref(x, m, g, sc, sw1, sw2, rc):
    sc2 = sc.copy()
    sc2[m[0]] = x
    rc2 = rc.copy()
    rc2[:, ::2] = x[::-1]
    return {2: x[m], 3: sc2, 4: sw2.copy(), 5: sw1.copy(), 6: rc2}


@jit.rawkernel()
def shared_count(x, y):
    """a shared array is an iterator (cupyx.jit's smem, smem + 32)"""
    t = jit.threadIdx.x
    smem = jit.shared_memory(np.int32, 64)
    smem[t] = x[t]
    jit.syncthreads()
    y[t] = T.count(T.device, smem, smem + 32, x[t]) * 100 + T.count(T.seq, smem + 32,
                                                                      smem + 64, x[t])


def _shared_count_ref(x, y):
    return {1: np.array([(x[:32] == v).sum() * 100 + (x[32:] == v).sum() for v in x], y.dtype)}


@jit.rawkernel()
def fancy_iters(x, seqs):
    """make_constant_iterator and make_counting_iterator, sequence's forms"""
    i = jit.threadIdx.x
    if i < x.shape[0]:
        k = T.make_constant_iterator(i * 3)
        c = T.make_counting_iterator(i * i)
        x[i] = k[i + 5] * 1000 + c[i] + (c + 2)[1] - (c - c)
        T.sequence(T.device, seqs[i, 0].begin(), seqs[i, 0].end())
        T.sequence(T.device, seqs[i, 1].begin(), seqs[i, 1].end(), i)
        T.sequence(T.device, seqs[i, 2].begin(), seqs[i, 2].end(), i, -3)


def _fancy_ref(x, seqs):
    i = np.arange(x.size)
    s = seqs.copy()
    n = s.shape[2]
    s[:, 0] = np.arange(n)
    s[:, 1] = i[:, None] + np.arange(n)
    s[:, 2] = i[:, None] - 3 * np.arange(n)
    return {0: (i * 3 * 1000 + i * i + i + i * i + 3).astype(x.dtype), 1: s}


@jit.rawkernel()
def pairs(x1, x2, out):
    """mismatch returns a pair of iterators, one into each range"""
    i = jit.threadIdx.x
    if i < x1.shape[0]:
        a = x1[i]
        b = x2[i]
        p = T.mismatch(T.device, a.begin(), a.end(), b.begin())
        out[i, 0] = p[0] - a.begin()
        out[i, 1] = p[1] - b.begin()


def _pairs_args(order):
    def make():
        a = _rows(order, np.float32, (5, 12), -9, 9)
        b = a.copy(order="K")
        for r, c in enumerate([0, 4, 11, 7]):
            b[r, c] += 1
        return a, b, poison((5, 2), np.int64)
    return make


def _pairs_ref(x1, x2, out):
    r = []
    for a, b in zip(x1, x2):
        d = np.nonzero(a != b)[0]
        k = d[0] if d.size else a.size
        r.append([k, k])
    return {2: np.array(r, out.dtype)}


RUN = []
for _o in ("C", "F"):
    RUN += [
        (row_ops, 1, 8, (lambda o: lambda: (_rows(o), poison((6, 9), np.int64),
                                           poison((6, 9), np.int32), poison((6, 8), np.int64)))(_o),
         _row_ops_ref),
        (row_scans, 1, 8, (lambda o: lambda: (_rows(o, np.int32, (6, 9), -20, 20),
                                             poison((6, 9), np.int64), poison((6, 9), np.int32)))(_o),
         _row_scans_ref),
        (row_sorts, 1, 8, (lambda o: lambda: (_rows(o, np.float64, (5, 31), -50, 50),
                                             _distinct_keys((5, 31)),
                                             _rows(o, np.int32, (5, 31), -900, 900),
                                             _rows(o, np.int64, (5, 31), 0, 6),
                                             _rows(o, np.int16, (5, 31), 0, 3)))(_o),
         _row_sorts_ref),
        (pairs, 1, 8, _pairs_args(_o), _pairs_ref),
    ]
RUN += [
    (searches, 1, 8, _searches_args, _searches_ref),
    (removes, 1, 1, lambda: (rand(25, np.int32, 0, 4), poison(25, np.int32),
                             poison(25, np.int64), poison(3, np.int64)), _removes_ref),
    (by_key, 1, 1, lambda: (np.sort(rand(20, np.int32, 0, 6)), rand(20, np.int64, -9, 9),
                            poison(20, np.int32), poison(20, np.int64), poison(20, np.int64),
                            poison(20, np.int64), poison(4, np.int64)), _by_key_ref),
    (set_ops, 1, 1, _set_args, _set_ref),
    (moves, 1, 4, _moves_args, _moves_ref),
    (shared_count, 1, 64, lambda: (rand(64, np.int32, 0, 5), poison(64, np.int64)),
     _shared_count_ref),
    (fancy_iters, 1, 8, lambda: (poison(8, np.int64), poison((8, 3, 7), np.int32)), _fancy_ref),
]

CASES = [
    (row_ops, (_rows("C"), poison((6, 9), np.int64), poison((6, 9), np.int32),
               poison((6, 8), np.int64)), [("cj_th_inclusive_scan(", True), ("thrust::", False)]),
    (row_ops, (_rows("F"), poison((6, 9), np.int64), poison((6, 9), np.int32),
               poison((6, 8), np.int64)), [("cj_siter<int>", True)]),
    (set_ops, _set_args(), [("cj_pair_to<", True)]),
    (shared_count, (rand(64, np.int32), poison(64, np.int64)), [("cj_th_count(", True)]),
    (fancy_iters, (poison(8, np.int64), poison((8, 3, 7), np.int32)),
     [("cj_th_make_counting_iterator(", True)]),
]
