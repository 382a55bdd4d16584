/* The solver's two hot loops in C: the maximum-discard sweep (solver/notty/_dp.py) and the
 * covering search for finishing draws (solver/notty/_chance.py).
 *
 * Both are line-for-line ports of the Python code beside them, and give the same answers: the
 * sweep visits states, set choices and run moves in the same order and breaks ties the same way
 * (first reached wins), so best_discard returns the very groups the pure-Python sweep returns.
 * The Python package uses this module when it is built and NOTTY_PURE_PYTHON is not set; the
 * tests run both and compare them. Rulesets whose states do not fit the packed encoding below
 * (many copies with long runs) are answered by the Python code (the functions return None).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLOURS 5
#define MAX_COPIES 9
#define MAX_MOVES 128 /* C(9, 4) = 126 ways to extend some of 9 open runs */

/* ------------------------------------------------------------------------------------------ sweep */

typedef struct {
    uint64_t key;    /* the joint run state: per colour, `copies` slots of `bits` bits, longest first */
    uint64_t chosen; /* per colour, 10 bits: which open runs the step extended */
    uint32_t used;   /* per colour, 4 bits: copies put into sets at this number */
    int32_t value;
    int32_t prev; /* index of the entry it came from, within the previous layer */
} Entry;

typedef struct {
    Entry *items;
    size_t len, cap;
} Entries;

/* Scratch memory kept from call to call: a solve right after other work (as a server or a
 * simulator calls it) would otherwise spend much of its time faulting in fresh heap pages.
 * Only code that makes no Python API call uses it (the sweep and the search), so no other
 * call can run in between and reuse it. */
static Entries scratch_entries = {NULL, 0, 0};
static int32_t *scratch_slots = NULL;
static size_t scratch_slots_cap = 0;
static uint32_t *scratch_options = NULL;
static size_t scratch_options_cap = 0;

typedef struct {
    int colours, numbers, copies, shortest, smallest, bits;
} Shape;

static int entries_push(Entries *e, const Entry *x) {
    if (e->len == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 256;
        Entry *items = realloc(e->items, cap * sizeof(Entry));
        if (!items) return -1;
        e->items = items;
        e->cap = cap;
    }
    e->items[e->len++] = *x;
    return 0;
}

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

typedef struct {
    int32_t *slots; /* entry index within the layer + 1; 0 when empty */
    size_t cap;
} Table;

/* An empty table of at least `want` slots (a power of two), in the scratch memory. */
static int table_reset(Table *t, size_t want) {
    size_t cap = 64;
    while (cap < want) cap *= 2;
    if (cap > scratch_slots_cap) {
        int32_t *slots = realloc(scratch_slots, cap * sizeof(int32_t));
        if (!slots) return -1;
        scratch_slots = slots;
        scratch_slots_cap = cap;
    }
    t->slots = scratch_slots;
    t->cap = cap;
    memset(t->slots, 0, t->cap * sizeof(int32_t));
    return 0;
}

/* The shape's packed state must fit 64 bits, and a colour's chosen runs 10 bits. */
static int shape_fits(Shape *s) {
    int bits = 0;
    while ((1 << bits) <= s->shortest) bits++;
    s->bits = bits;
    if (s->colours < 1 || s->colours > MAX_COLOURS || s->copies < 1 || s->copies > MAX_COPIES) return 0;
    if (s->shortest < 2 || s->smallest < 2) return 0;
    return s->colours * s->copies * bits <= 64;
}

static inline int gain(int length, int shortest) {
    if (length >= shortest) return 1;
    return length + 1 == shortest ? shortest : 0;
}

typedef struct {
    uint64_t part; /* this colour's new run state, already shifted into place */
    uint64_t mask; /* runs extended, shifted into place */
    int score;
} Move;

/* The moves of one colour (as _dp.run_moves lists them before keeping the best per new state:
 * keeping the best, first reached, per state gives the same sweep, see the module comment). */
static int colour_moves(const int *lengths, int opened, int free, int c, const Shape *s, Move *out) {
    int shift = c * s->copies;
    if (free >= opened) {
        uint64_t part = 0;
        int score = 0;
        for (int k = 0; k < opened; k++) {
            int grown = lengths[k] + 1 < s->shortest ? lengths[k] + 1 : s->shortest;
            part |= (uint64_t)grown << ((shift + k) * s->bits);
            score += gain(lengths[k], s->shortest);
        }
        for (int k = opened; k < free; k++) part |= (uint64_t)1 << ((shift + k) * s->bits);
        out[0].part = part;
        out[0].score = score;
        out[0].mask = (uint64_t)((1u << opened) - 1) << (c * 10);
        return 1;
    }
    int idx[MAX_COPIES];
    for (int i = 0; i < free; i++) idx[i] = i;
    int n = 0;
    for (;;) {
        uint64_t part = 0, mask = 0;
        int score = 0;
        for (int k = 0; k < free; k++) {
            int l = lengths[idx[k]];
            int grown = l + 1 < s->shortest ? l + 1 : s->shortest;
            part |= (uint64_t)grown << ((shift + k) * s->bits);
            score += gain(l, s->shortest);
            mask |= 1u << idx[k];
        }
        out[n].part = part;
        out[n].mask = mask << (c * 10);
        out[n].score = score;
        n++;
        int i = free - 1;
        while (i >= 0 && idx[i] == opened - free + i) i--;
        if (i < 0) break;
        idx[i]++;
        for (int j = i + 1; j < free; j++) idx[j] = idx[j - 1] + 1;
    }
    return n;
}

/* Set choices at one number, as _dp.set_options: itertools.product order, filtered, stable by sum.
 * Returns how many, written to *out (scratch memory) as packed 4-bit counts. */
static int set_options(const uint8_t *counts, const Shape *s, uint32_t **out) {
    int present = 0, total = 1;
    for (int c = 0; c < s->colours; c++) {
        if (counts[c]) present++;
        total *= counts[c] + 1;
    }
    if (present < s->smallest) total = 1;
    if ((size_t)total * 2 > scratch_options_cap) {
        uint32_t *grown = realloc(scratch_options, sizeof(uint32_t) * (size_t)total * 2);
        if (!grown) return -1;
        scratch_options = grown;
        scratch_options_cap = (size_t)total * 2;
    }
    /* the options in product order, with their sums beside them; then sorted into the second half */
    uint32_t *all = scratch_options, *sorted = NULL;
    uint8_t few[1024], *sums = total <= 1024 ? few : malloc((size_t)total);
    if (!sums) return -1;
    int n = 0;
    if (present < s->smallest) {
        all[n] = 0;
        sums[n++] = 0;
    } else {
        int u[MAX_COLOURS] = {0};
        for (;;) {
            int sum = 0, most = 0;
            uint32_t packed = 0;
            for (int c = 0; c < s->colours; c++) {
                sum += u[c];
                if (u[c] > most) most = u[c];
                packed |= (uint32_t)u[c] << (4 * c);
            }
            if (sum == 0 || sum >= s->smallest * most) {
                all[n] = packed;
                sums[n++] = (uint8_t)sum;
            }
            int c = s->colours - 1;
            while (c >= 0 && u[c] == counts[c]) u[c--] = 0;
            if (c < 0) break;
            u[c]++;
        }
    }
    /* stable by sum (a counting sort into the second half of the scratch) */
    int bucket[64] = {0}; /* sums are at most 5 colours x 9 copies */
    for (int i = 0; i < n; i++) bucket[sums[i] + 1]++;
    for (int k = 1; k < 64; k++) bucket[k] += bucket[k - 1];
    sorted = scratch_options + total;
    for (int i = 0; i < n; i++) sorted[bucket[sums[i]]++] = all[i];
    if (sums != few) free(sums);
    *out = sorted;
    return n;
}

static int has_any_group(const uint8_t *grid, const Shape *s) {
    int streaks[MAX_COLOURS] = {0};
    for (int n = 0; n < s->numbers; n++) {
        int present = 0;
        for (int c = 0; c < s->colours; c++) {
            if (grid[n * s->colours + c]) {
                present++;
                if (++streaks[c] >= s->shortest) return 1;
            } else {
                streaks[c] = 0;
            }
        }
        if (present >= s->smallest) return 1;
    }
    return 0;
}

/* The sweep of _dp._sweep. Layer 0 is the empty start; layer n + 1 follows number n.
 * Returns the best value (or -1 on memory failure) and the index of the best final entry. */
static int sweep(const uint8_t *grid, const Shape *s, Entries *all, size_t *starts, size_t *best_at) {
    Table table = {NULL, 0};
    Entry start = {0, 0, 0, 0, -1};
    all->len = 0;
    if (entries_push(all, &start)) return -1;
    starts[0] = 0;
    starts[1] = 1;
    Move moves[MAX_COLOURS][MAX_MOVES];
    int nmoves[MAX_COLOURS];
    int lengths[MAX_COLOURS][MAX_COPIES];
    int opened[MAX_COLOURS];
    int failed = 0;
    uint64_t slot_mask = ((uint64_t)1 << s->bits) - 1;
    for (int n = 0; n < s->numbers && !failed; n++) {
        const uint8_t *counts = grid + n * s->colours;
        size_t ps = starts[n], pe = starts[n + 1];
        int any = 0;
        for (int c = 0; c < s->colours; c++) any |= counts[c];
        if (!any) {
            size_t best = ps;
            for (size_t i = ps + 1; i < pe; i++)
                if (all->items[i].value > all->items[best].value) best = i;
            Entry e = {0, 0, 0, all->items[best].value, (int32_t)(best - ps)};
            if (entries_push(all, &e)) failed = 1;
            starts[n + 2] = all->len;
            continue;
        }
        uint32_t *options = NULL;
        int noptions = set_options(counts, s, &options);
        if (noptions < 0 || table_reset(&table, (pe - ps) * 4)) {
            failed = 1;
            break;
        }
        size_t layer = all->len;
        for (size_t p = ps; p < pe && !failed; p++) {
            uint64_t key = all->items[p].key;
            int32_t value = all->items[p].value;
            for (int c = 0; c < s->colours; c++) {
                int k = 0;
                for (; k < s->copies; k++) {
                    int l = (int)((key >> ((c * s->copies + k) * s->bits)) & slot_mask);
                    if (!l) break;
                    lengths[c][k] = l;
                }
                opened[c] = k;
            }
            for (int o = 0; o < noptions && !failed; o++) {
                uint32_t used = options[o];
                int base = 0;
                for (int c = 0; c < s->colours; c++) {
                    int u = (int)((used >> (4 * c)) & 15);
                    base += u;
                    nmoves[c] = colour_moves(lengths[c], opened[c], counts[c] - u, c, s, moves[c]);
                }
                int pick[MAX_COLOURS] = {0};
                for (;;) {
                    uint64_t nkey = 0, chosen = 0;
                    int32_t total = value + base;
                    for (int c = 0; c < s->colours; c++) {
                        const Move *m = &moves[c][pick[c]];
                        nkey |= m->part;
                        chosen |= m->mask;
                        total += m->score;
                    }
                    /* look the new state up in this layer */
                    size_t h = (size_t)mix64(nkey) & (table.cap - 1);
                    for (;;) {
                        int32_t at = table.slots[h];
                        if (!at) {
                            Entry e = {nkey, chosen, used, total, (int32_t)(p - ps)};
                            if (entries_push(all, &e)) {
                                failed = 1;
                                break;
                            }
                            table.slots[h] = (int32_t)(all->len - layer);
                            if ((all->len - layer) * 2 > table.cap) { /* grow: rehash the layer */
                                size_t count = all->len - layer;
                                if (table_reset(&table, table.cap * 2)) {
                                    failed = 1;
                                    break;
                                }
                                for (size_t i = 0; i < count; i++) {
                                    size_t g = (size_t)mix64(all->items[layer + i].key) & (table.cap - 1);
                                    while (table.slots[g]) g = (g + 1) & (table.cap - 1);
                                    table.slots[g] = (int32_t)(i + 1);
                                }
                            }
                            break;
                        }
                        Entry *e = &all->items[layer + at - 1];
                        if (e->key == nkey) {
                            if (total > e->value) {
                                e->value = total;
                                e->prev = (int32_t)(p - ps);
                                e->used = used;
                                e->chosen = chosen;
                            }
                            break;
                        }
                        h = (h + 1) & (table.cap - 1);
                    }
                    if (failed) break;
                    int c = s->colours - 1;
                    while (c >= 0 && pick[c] == nmoves[c] - 1) pick[c--] = 0;
                    if (c < 0) break;
                    pick[c]++;
                }
            }
        }
        starts[n + 2] = all->len;
    }
    if (failed) return -1;
    size_t ls = starts[s->numbers], le = starts[s->numbers + 1];
    size_t best = ls;
    for (size_t i = ls + 1; i < le; i++)
        if (all->items[i].value > all->items[best].value) best = i;
    *best_at = best;
    return all->items[best].value;
}

static int parse_shape(PyObject *grid, int colours, int copies, int shortest, int smallest, Shape *s,
                       const uint8_t **cells) {
    if (!PyBytes_Check(grid)) {
        PyErr_SetString(PyExc_TypeError, "grid must be bytes");
        return -1;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(grid);
    s->colours = colours;
    s->copies = copies;
    s->shortest = shortest;
    s->smallest = smallest;
    if (colours < 1 || size % colours) {
        PyErr_SetString(PyExc_ValueError, "grid size is not a multiple of the colours");
        return -1;
    }
    s->numbers = (int)(size / colours);
    *cells = (const uint8_t *)PyBytes_AS_STRING(grid);
    if (s->numbers < 1 || s->numbers > 99) return 0;
    for (Py_ssize_t i = 0; i < size; i++)
        if ((*cells)[i] > copies) return 0;
    return shape_fits(s);
}

/* max_discard(grid, colours, copies, shortest, smallest) -> int | None */
static PyObject *native_max_discard(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *grid;
    int colours, copies, shortest, smallest;
    if (!PyArg_ParseTuple(args, "Oiiii", &grid, &colours, &copies, &shortest, &smallest)) return NULL;
    Shape s;
    const uint8_t *cells;
    int fits = parse_shape(grid, colours, copies, shortest, smallest, &s, &cells);
    if (fits < 0) return NULL;
    if (!fits) Py_RETURN_NONE;
    if (!has_any_group(cells, &s)) return PyLong_FromLong(0);
    size_t starts[101];
    size_t best_at;
    int value = sweep(cells, &s, &scratch_entries, starts, &best_at);
    if (value < 0) return PyErr_NoMemory();
    return PyLong_FromLong(value);
}

typedef struct {
    int c, low, high;
} Run;

static int run_order(const void *a, const void *b) {
    const Run *x = a, *y = b;
    if (x->c != y->c) return x->c - y->c;
    if (x->low != y->low) return x->low - y->low;
    return x->high - y->high;
}

/* best_groups(grid, colours, copies, shortest, smallest, cards) -> tuple of groups | None
 * cards[c][n] is the card of colour index c and number n (index 0 unused), as _api._card_table. */
static PyObject *native_best_groups(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *grid, *cards;
    int colours, copies, shortest, smallest;
    if (!PyArg_ParseTuple(args, "OiiiiO!", &grid, &colours, &copies, &shortest, &smallest, &PyTuple_Type,
                          &cards))
        return NULL;
    Shape s;
    const uint8_t *cells;
    int fits = parse_shape(grid, colours, copies, shortest, smallest, &s, &cells);
    if (fits < 0) return NULL;
    if (!fits) Py_RETURN_NONE;
    if (PyTuple_GET_SIZE(cards) != colours) {
        PyErr_SetString(PyExc_ValueError, "one row of cards per colour");
        return NULL;
    }
    for (int c = 0; c < colours; c++) {
        PyObject *row = PyTuple_GET_ITEM(cards, c);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != s.numbers + 1) {
            PyErr_SetString(PyExc_ValueError, "a row of cards holds numbers + 1 entries");
            return NULL;
        }
    }
    if (!has_any_group(cells, &s)) return PyTuple_New(0);
    size_t starts[101];
    uint32_t used[99];
    uint64_t chosen[99];
    /* every set takes at least 2 cards and every run at least 2: at most cards / 2 of each */
    size_t most = (size_t)s.numbers * (size_t)colours * (size_t)copies / 2 + 1;
    Run *runs = malloc(sizeof(Run) * most);
    int *set_number = malloc(sizeof(int) * most);
    int *set_mask = malloc(sizeof(int) * most);
    PyObject *result = NULL;
    if (!runs || !set_number || !set_mask) {
        PyErr_NoMemory();
        goto done;
    }
    size_t best_at;
    if (sweep(cells, &s, &scratch_entries, starts, &best_at) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    /* walk back from the best final state (before any Python call could reuse the scratch) */
    size_t at = best_at;
    for (int n = s.numbers - 1; n >= 0; n--) {
        const Entry *e = &scratch_entries.items[at];
        used[n] = e->used;
        chosen[n] = e->chosen;
        at = starts[n] + (size_t)e->prev;
    }
    /* replay, as _dp.plan_groups */
    int open_runs[MAX_COLOURS][MAX_COPIES];
    int nopen[MAX_COLOURS] = {0};
    size_t nsets = 0, nruns = 0;
    int number = 0;
    for (int i = 0; i < s.numbers; i++) {
        number = i + 1;
        const uint8_t *counts = cells + i * colours;
        int u[MAX_COLOURS], top = 0;
        for (int c = 0; c < colours; c++) {
            u[c] = (int)((used[i] >> (4 * c)) & 15);
            if (u[c] > top) top = u[c];
        }
        if (top) {
            int masks[MAX_COPIES] = {0};
            int slot = 0;
            for (int c = 0; c < colours; c++)
                for (int k = 0; k < u[c]; k++) masks[slot++ % top] |= 1 << c;
            for (int k = 0; k < top; k++) {
                set_number[nsets] = number;
                set_mask[nsets++] = masks[k];
            }
        }
        for (int c = 0; c < colours; c++) {
            int free = counts[c] - u[c];
            if (!nopen[c] && !free) continue;
            unsigned mask = (unsigned)((chosen[i] >> (10 * c)) & 1023);
            int nchosen = __builtin_popcount(mask);
            if (nchosen < nopen[c]) {
                int kept = 0;
                for (int k = 0; k < nopen[c]; k++) {
                    if (mask >> k & 1) {
                        open_runs[c][kept++] = open_runs[c][k];
                    } else if (number - open_runs[c][k] >= shortest) {
                        runs[nruns++] = (Run){c, open_runs[c][k], number - 1};
                    }
                }
                nopen[c] = kept;
            }
            for (int k = nchosen; k < free; k++) open_runs[c][nopen[c]++] = number;
        }
    }
    for (int c = 0; c < colours; c++)
        for (int k = 0; k < nopen[c]; k++)
            if (number + 1 - open_runs[c][k] >= shortest) runs[nruns++] = (Run){c, open_runs[c][k], number};
    qsort(runs, nruns, sizeof(Run), run_order);
    result = PyTuple_New((Py_ssize_t)(nsets + nruns));
    if (!result) goto done;
    for (size_t g = 0; g < nsets; g++) {
        int size = __builtin_popcount((unsigned)set_mask[g]);
        PyObject *group = PyTuple_New(size);
        if (!group) {
            Py_CLEAR(result);
            goto done;
        }
        int k = 0;
        for (int c = 0; c < colours; c++) {
            if (set_mask[g] >> c & 1) {
                PyObject *card = PyTuple_GET_ITEM(PyTuple_GET_ITEM(cards, c), set_number[g]);
                Py_INCREF(card);
                PyTuple_SET_ITEM(group, k++, card);
            }
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)g, group);
    }
    for (size_t r = 0; r < nruns; r++) {
        const Run *run = &runs[r];
        PyObject *group = PyTuple_New(run->high - run->low + 1);
        if (!group) {
            Py_CLEAR(result);
            goto done;
        }
        PyObject *row = PyTuple_GET_ITEM(cards, run->c);
        for (int n = run->low; n <= run->high; n++) {
            PyObject *card = PyTuple_GET_ITEM(row, n);
            Py_INCREF(card);
            PyTuple_SET_ITEM(group, n - run->low, card);
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)(nsets + r), group);
    }
done:
    free(runs);
    free(set_number);
    free(set_mask);
    return result;
}

/* grid(hand, colour_index, numbers, copies) -> bytes | None
 * The hand's copies per card, row-major by number then colour (as _api._grid, flattened).
 * colour_index maps a colour's rank in COLOUR_ORDER to its index in the rules (or -1). None when
 * a card is not in the deck or has too many copies: the caller then raises the precise error. */
static PyObject *str_number, *str_rank;

/* The grid of a hand, or Py_None (a new reference) when a card is not in the deck or has too many
 * copies; NULL with an exception on failure. */
static PyObject *make_grid(PyObject *hand, PyObject *index, int numbers, int copies) {
    Py_ssize_t ncolours = PyTuple_GET_SIZE(index);
    int map[8], colours = 0;
    if (ncolours > 8) {
        PyErr_SetString(PyExc_ValueError, "too many colour ranks");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < ncolours; i++) {
        map[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(index, i));
        if (map[i] + 1 > colours) colours = map[i] + 1;
    }
    if (PyErr_Occurred()) return NULL;
    if (colours < 1 || numbers < 1) Py_RETURN_NONE;
    PyObject *seq = PySequence_Fast(hand, "a hand is an iterable of cards");
    if (!seq) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)numbers * colours);
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    uint8_t *cells = (uint8_t *)PyBytes_AS_STRING(out);
    memset(cells, 0, (size_t)numbers * (size_t)colours);
    Py_ssize_t size = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *number_obj = PyObject_GetAttr(items[i], str_number);
        if (!number_obj) goto invalid;
        long number = PyLong_AsLong(number_obj);
        Py_DECREF(number_obj);
        if (number < 1 || number > numbers) goto invalid;
        PyObject *rank_obj = PyObject_GetAttr(items[i], str_rank);
        if (!rank_obj) goto invalid;
        long rank = PyLong_AsLong(rank_obj) >> 16;
        Py_DECREF(rank_obj);
        if (rank < 0 || rank >= ncolours || map[rank] < 0) goto invalid;
        uint8_t *cell = &cells[(number - 1) * colours + map[rank]];
        if (++*cell > copies) goto invalid;
    }
    Py_DECREF(seq);
    return out;
invalid:
    PyErr_Clear();
    Py_DECREF(seq);
    Py_DECREF(out);
    Py_RETURN_NONE;
}

static PyObject *native_grid(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *hand, *index;
    int numbers, copies;
    if (!PyArg_ParseTuple(args, "OO!ii", &hand, &PyTuple_Type, &index, &numbers, &copies)) return NULL;
    return make_grid(hand, index, numbers, copies);
}

/* best_discard(hand, info) / max_discard_of(hand, info) -> list | int | None
 * The whole of _api.best_discard / max_discard for one ruleset in one call: the hand's grid, a
 * look in the per-hand cache (a dict keyed by the grid), the sweep on a miss. ``info`` is
 * (colour_index, numbers, copies, shortest, smallest, cards, best cache, max cache), built once
 * per ruleset by _api. None when the hand is refused or the ruleset is left to Python. */
#define CACHE_LIMIT 65536

static PyObject *cached_answer(PyObject *args, int best) {
    PyObject *hand, *info;
    if (!PyArg_ParseTuple(args, "OO!", &hand, &PyTuple_Type, &info)) return NULL;
    if (PyTuple_GET_SIZE(info) != 8) {
        PyErr_SetString(PyExc_ValueError, "info is an 8-tuple");
        return NULL;
    }
    PyObject *index = PyTuple_GET_ITEM(info, 0), *cards = PyTuple_GET_ITEM(info, 5);
    PyObject *cache = PyTuple_GET_ITEM(info, best ? 6 : 7);
    if (!PyTuple_Check(index) || !PyDict_Check(cache)) {
        PyErr_SetString(PyExc_TypeError, "bad info");
        return NULL;
    }
    int numbers = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 1));
    int copies = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 2));
    int shortest = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 3));
    int smallest = (int)PyLong_AsLong(PyTuple_GET_ITEM(info, 4));
    if (PyErr_Occurred()) return NULL;
    PyObject *grid = make_grid(hand, index, numbers, copies);
    if (!grid || grid == Py_None) return grid;
    PyObject *answer = PyDict_GetItemWithError(cache, grid); /* borrowed */
    if (answer) {
        Py_DECREF(grid);
        return best ? PySequence_List(answer) : Py_NewRef(answer);
    }
    if (PyErr_Occurred()) {
        Py_DECREF(grid);
        return NULL;
    }
    int colours = (int)(PyBytes_GET_SIZE(grid) / numbers);
    PyObject *call = best ? Py_BuildValue("(OiiiiO)", grid, colours, copies, shortest, smallest, cards)
                          : Py_BuildValue("(Oiiii)", grid, colours, copies, shortest, smallest);
    if (!call) {
        Py_DECREF(grid);
        return NULL;
    }
    PyObject *found = best ? native_best_groups(NULL, call) : native_max_discard(NULL, call);
    Py_DECREF(call);
    if (!found || found == Py_None) {
        Py_DECREF(grid);
        return found;
    }
    if (PyDict_GET_SIZE(cache) >= CACHE_LIMIT) PyDict_Clear(cache);
    if (PyDict_SetItem(cache, grid, found) < 0) {
        Py_DECREF(grid);
        Py_DECREF(found);
        return NULL;
    }
    Py_DECREF(grid);
    if (!best) return found;
    PyObject *list = PySequence_List(found);
    Py_DECREF(found);
    return list;
}

static PyObject *native_best_discard(PyObject *self, PyObject *args) {
    (void)self;
    return cached_answer(args, 1);
}

static PyObject *native_max_discard_of(PyObject *self, PyObject *args) {
    (void)self;
    return cached_answer(args, 0);
}

/* ----------------------------------------------------------------------------- covering search */

typedef struct {
    int colours, numbers, shortest, smallest, least, cells;
    const uint8_t *deck;
    uint8_t *rem, *drawn;
    /* (rem, drawn) states already searched: an open-addressing set of 2 * cells byte keys */
    uint8_t *seen_keys;
    uint64_t *seen_hash;
    size_t seen_len, seen_cap;
    int listing;      /* 1: list the finishing draws in `found`; 0: only count their ways */
    uint8_t *found;   /* the finishing draws, `cells` bytes each */
    size_t nfound, found_cap;
    uint64_t ways;   /* sum over finishing draws of the ways the deck deals each */
    int overflow;
    int draw;
    int *groups; /* every group of at most `draw` cards, flattened, each prefixed by its size */
    size_t ngroups_ints;
    int failed;
    size_t max_states; /* the states searched before it stops (0: no bound) */
    int cut;           /* it stopped there: what it found is some of the answer */
} Search;

static uint64_t state_hash(const Search *s) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < s->cells; i++) h = (h ^ s->rem[i]) * 1099511628211ULL;
    for (int i = 0; i < s->cells; i++) h = (h ^ s->drawn[i]) * 1099511628211ULL;
    return h | 1; /* 0 marks an empty slot */
}

/* The seen states' memory, kept from search to search (see the sweep's scratch). The table of
 * one search starts small and is cleared as it is used, so a small search touches little. */
static uint64_t *scratch_seen_hash = NULL;
static uint8_t *scratch_seen_keys = NULL;
static size_t scratch_seen_hash_cap = 0, scratch_seen_keys_cap = 0;

static int seen_grow(Search *s, size_t cap) {
    size_t width = 2 * (size_t)s->cells;
    /* the new table sits after the old one in the scratch, then moves down */
    size_t old = s->seen_cap;
    if (old + cap > scratch_seen_hash_cap) {
        uint64_t *hashes = realloc(scratch_seen_hash, (old + cap) * sizeof(uint64_t));
        if (!hashes) return -1;
        scratch_seen_hash = hashes;
        scratch_seen_hash_cap = old + cap;
    }
    if ((old + cap) * width > scratch_seen_keys_cap) {
        uint8_t *keys = realloc(scratch_seen_keys, (old + cap) * width);
        if (!keys) return -1;
        scratch_seen_keys = keys;
        scratch_seen_keys_cap = (old + cap) * width;
    }
    uint64_t *hashes = scratch_seen_hash + old;
    uint8_t *keys = scratch_seen_keys + old * width;
    memset(hashes, 0, cap * sizeof(uint64_t));
    for (size_t i = 0; i < old; i++) {
        uint64_t h = scratch_seen_hash[i];
        if (!h) continue;
        size_t g = (size_t)h & (cap - 1);
        while (hashes[g]) g = (g + 1) & (cap - 1);
        hashes[g] = h;
        memcpy(keys + g * width, scratch_seen_keys + i * width, width);
    }
    memmove(scratch_seen_hash, hashes, cap * sizeof(uint64_t));
    memmove(scratch_seen_keys, keys, cap * width);
    s->seen_hash = scratch_seen_hash;
    s->seen_keys = scratch_seen_keys;
    s->seen_cap = cap;
    return 0;
}

/* Adds the current state; returns 1 if it was already there, -1 on failure. */
static int seen_add(Search *s) {
    size_t width = 2 * (size_t)s->cells;
    if ((s->seen_len + 1) * 2 > s->seen_cap && seen_grow(s, s->seen_cap ? s->seen_cap * 2 : 64)) return -1;
    uint64_t h = state_hash(s);
    size_t g = (size_t)h & (s->seen_cap - 1);
    while (s->seen_hash[g]) {
        if (s->seen_hash[g] == h) {
            const uint8_t *key = s->seen_keys + g * width;
            if (!memcmp(key, s->rem, (size_t)s->cells) && !memcmp(key + s->cells, s->drawn, (size_t)s->cells))
                return 1;
        }
        g = (g + 1) & (s->seen_cap - 1);
    }
    s->seen_hash[g] = h;
    memcpy(s->seen_keys + g * width, s->rem, (size_t)s->cells);
    memcpy(s->seen_keys + g * width + s->cells, s->drawn, (size_t)s->cells);
    s->seen_len++;
    return 0;
}

static void cover(Search *s, int budget, int start);

static inline int can_use(const Search *s, int i) { return s->rem[i] || s->drawn[i] < s->deck[i]; }

/* Cover `cards` (from the hand where possible), recurse; say whether it was affordable. */
static int try_cover(Search *s, int budget, const int *cards, int ncards, int u) {
    int taken[64], bought[64];
    int ntaken = 0, nbought = 0, ok = 1;
    for (int k = 0; k < ncards; k++) {
        int i = cards[k];
        if (s->rem[i]) {
            s->rem[i]--;
            taken[ntaken++] = i;
        } else if (s->drawn[i] < s->deck[i] && nbought < budget) {
            s->drawn[i]++;
            bought[nbought++] = i;
        } else {
            ok = 0;
            break;
        }
    }
    if (ok) cover(s, budget - nbought, u);
    for (int k = 0; k < ntaken; k++) s->rem[taken[k]]++;
    for (int k = 0; k < nbought; k++) s->drawn[bought[k]]--;
    return ok;
}

static void pick_sets(Search *s, int budget, const int *usable, int nusable, int need, int u, int *chosen,
                      int nchosen, int index) {
    if (s->failed || s->cut) return;
    if (nchosen >= need) try_cover(s, budget, chosen, nchosen, u);
    for (int j = index; j < nusable; j++) {
        chosen[nchosen] = usable[j];
        pick_sets(s, budget, usable, nusable, need, u, chosen, nchosen + 1, j + 1);
    }
}

/* Every group of at most `draw` cards (runs, then sets), as _chance._all_groups; built when first
 * needed (a hand covered with draws to spare), into memory freed after the search. */
static int build_groups(Search *s) {
    int colours = s->colours, numbers = s->numbers, shortest = s->shortest, smallest = s->smallest;
    int draw = s->draw;
    size_t cap = 1;
    for (int c = 0; c < colours; c++)
        for (int low = 0; low < numbers; low++)
            for (int length = shortest; length <= draw; length++)
                if (low + length <= numbers) cap += 1 + (size_t)length;
    cap += (size_t)numbers * (1u << colours) * (1 + MAX_COLOURS);
    s->groups = malloc(sizeof(int) * cap);
    if (!s->groups) return -1;
    size_t k = 0;
    for (int c = 0; c < colours; c++)
        for (int low = 0; low < numbers; low++)
            for (int length = shortest; length <= draw; length++)
                if (low + length <= numbers) {
                    s->groups[k++] = length;
                    for (int j = low; j < low + length; j++) s->groups[k++] = j * colours + c;
                }
    for (int n = 0; n < numbers; n++)
        for (int mask = 1; mask < (1 << colours); mask++) {
            int size = __builtin_popcount((unsigned)mask);
            if (size < smallest || size > draw) continue;
            s->groups[k++] = size;
            for (int j = 0; j < colours; j++)
                if (mask >> j & 1) s->groups[k++] = n * colours + j;
        }
    s->ngroups_ints = k;
    return 0;
}

static void cover(Search *s, int budget, int start) {
    if (s->failed || s->cut) return;
    if (s->max_states && s->seen_len >= s->max_states) {
        s->cut = 1;
        return;
    }
    int seen = seen_add(s);
    if (seen) {
        if (seen < 0) s->failed = 1;
        return;
    }
    int u = start;
    while (u < s->cells && !s->rem[u]) u++;
    if (u == s->cells) {
        if (budget == 0 && !s->listing) { /* each draw reaches here once: (no cards, drawn) is seen once */
            uint64_t w = 1;
            for (int i = 0; i < s->cells; i++) {
                for (int t = 0; t < s->drawn[i]; t++) { /* w *= comb(deck[i], drawn[i]), exactly */
                    if (__builtin_mul_overflow(w, (uint64_t)(s->deck[i] - t), &w)) s->overflow = 1;
                    w /= (uint64_t)(t + 1);
                }
            }
            if (__builtin_add_overflow(s->ways, w, &s->ways)) s->overflow = 1;
        } else if (budget == 0) {
            if (s->nfound == s->found_cap) {
                size_t cap = s->found_cap ? s->found_cap * 2 : 16;
                uint8_t *grown = realloc(s->found, cap * (size_t)s->cells);
                if (!grown) {
                    s->failed = 1;
                    return;
                }
                s->found = grown;
                s->found_cap = cap;
            }
            memcpy(s->found + s->nfound++ * (size_t)s->cells, s->drawn, (size_t)s->cells);
        } else if (budget >= s->least) { /* a whole group from the deck alone */
            if (!s->groups && build_groups(s)) {
                s->failed = 1;
                return;
            }
            size_t k = 0;
            while (k < s->ngroups_ints && !s->failed && !s->cut) {
                int size = s->groups[k];
                if (size <= budget) try_cover(s, budget, &s->groups[k + 1], size, s->cells);
                k += 1 + (size_t)size;
            }
        }
        return;
    }
    int n = u / s->colours, c = u % s->colours;
    int run[128];
    s->rem[u]--;
    for (int low = n; low >= 0; low--) {
        if (low < n && !can_use(s, low * s->colours + c)) break;
        int high = n > low + s->shortest - 1 ? n : low + s->shortest - 1;
        for (; high < s->numbers; high++) {
            int size = 0;
            for (int j = low; j <= high; j++)
                if (j != n) run[size++] = j * s->colours + c;
            if (!try_cover(s, budget, run, size, u) || s->cut) break;
        }
    }
    int usable[MAX_COLOURS], nusable = 0, chosen[MAX_COLOURS];
    for (int k = 0; k < s->colours; k++) {
        int i = n * s->colours + k;
        if (k != c && can_use(s, i)) usable[nusable++] = i;
    }
    pick_sets(s, budget, usable, nusable, s->smallest - 1, u, chosen, 0, 0);
    s->rem[u]++;
}

static int bytes_of(PyObject *flat, uint8_t *out, int cells) {
    if (!PyTuple_Check(flat) || PyTuple_GET_SIZE(flat) != cells) return 0;
    for (int i = 0; i < cells; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(flat, i));
        if (v < 0 || v > 255) {
            PyErr_Clear();
            return 0;
        }
        out[i] = (uint8_t)v;
    }
    return 1;
}

/* The search of finishers() and finishing_ways(): the set of draws when `count` is 0, else their ways;
 * with whether the search was whole (else it stopped after `max_states` states). */
static PyObject *run_search(PyObject *args, int count) {
    PyObject *hand, *deck;
    int draw, colours, numbers, shortest, smallest;
    Py_ssize_t max_states;
    if (!PyArg_ParseTuple(args, "OOiiiiin", &hand, &deck, &draw, &colours, &numbers, &shortest, &smallest,
                          &max_states))
        return NULL;
    if (max_states < 0) {
        PyErr_SetString(PyExc_ValueError, "max_states must be 0 (no bound) or more");
        return NULL;
    }
    int cells = colours * numbers;
    /* runs are built in a fixed buffer; cards bought per group are bounded by the group's size */
    if (colours < 1 || colours > MAX_COLOURS || numbers < 1 || numbers > 64 || draw < 0 || draw > 32 ||
        shortest < 2 || smallest < 2)
        Py_RETURN_NONE;
    Search s;
    memset(&s, 0, sizeof s);
    s.colours = colours;
    s.numbers = numbers;
    s.shortest = shortest;
    s.smallest = smallest;
    s.least = shortest < smallest ? shortest : smallest;
    s.cells = cells;
    uint8_t *buffers = malloc(3 * (size_t)cells);
    if (!buffers) return PyErr_NoMemory();
    s.rem = buffers;
    s.drawn = buffers + cells;
    uint8_t *deck_cells = buffers + 2 * cells;
    s.deck = deck_cells;
    if (!bytes_of(hand, s.rem, cells) || !bytes_of(deck, deck_cells, cells)) {
        free(buffers);
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    memset(s.drawn, 0, (size_t)cells);
    s.draw = draw;
    s.max_states = (size_t)max_states;
    PyObject *result = NULL;
    s.listing = !count;
    cover(&s, draw, 0); /* no Python call in here: the scratch memory is this search's alone */
    if (s.failed) {
        PyErr_NoMemory();
    } else if (count) {
        if (s.overflow) {
            result = Py_None; /* too many ways for 64 bits: Python counts them */
            Py_INCREF(result);
        } else {
            result = Py_BuildValue("(KO)", (unsigned long long)s.ways, s.cut ? Py_False : Py_True);
        }
    } else {
        PyObject *found = PySet_New(NULL);
        for (size_t f = 0; found && f < s.nfound; f++) {
            PyObject *drawn = PyTuple_New(cells);
            if (!drawn) {
                Py_CLEAR(found);
                break;
            }
            for (int i = 0; i < cells; i++)
                PyTuple_SET_ITEM(drawn, i, PyLong_FromLong(s.found[f * (size_t)cells + (size_t)i]));
            if (PySet_Add(found, drawn) < 0) Py_CLEAR(found);
            Py_DECREF(drawn);
        }
        if (found) {
            PyObject *frozen = PyFrozenSet_New(found);
            Py_DECREF(found);
            if (frozen) {
                result = Py_BuildValue("(OO)", frozen, s.cut ? Py_False : Py_True);
                Py_DECREF(frozen);
            }
        }
    }
    free(s.found);
    free(s.groups);
    free(buffers);
    return result;
}

/* finishers(hand, deck, draw, colours, numbers, shortest, smallest, max_states) -> (frozenset, whole) | None
 * As _chance._search; None for shapes the Python search should answer. */
static PyObject *native_finishers(PyObject *self, PyObject *args) {
    (void)self;
    return run_search(args, 0);
}

/* finishing_ways(hand, deck, draw, colours, numbers, shortest, smallest, max_states) -> (int, whole) | None
 * The sum over finishing draws found of prod(comb(deck[i], drawn[i])): chance_flat's numerator. */
static PyObject *native_finishing_ways(PyObject *self, PyObject *args) {
    (void)self;
    return run_search(args, 1);
}

/* --------------------------------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"max_discard", native_max_discard, METH_VARARGS, "The maximum discard of a grid of copies."},
    {"best_groups", native_best_groups, METH_VARARGS, "The groups of a maximum discard of a grid."},
    {"grid", native_grid, METH_VARARGS, "A hand's copies per card, as bytes."},
    {"best_discard", native_best_discard, METH_VARARGS, "best_discard for one ruleset, cached per grid."},
    {"max_discard_of", native_max_discard_of, METH_VARARGS, "max_discard for one ruleset, cached per grid."},
    {"finishers", native_finishers, METH_VARARGS, "Every draw that lets a hand go out whole."},
    {"finishing_ways", native_finishing_ways, METH_VARARGS, "How many ways the deck deals a finishing draw."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The solver's hot loops, in C.", -1, methods, NULL, NULL, NULL, NULL,
};

/* Bumped with every change to what a function takes or answers: _impl.py ignores a module built
 * from another version of this file (a stale build left in the tree), and Python answers. */
#define NATIVE_VERSION 2

PyMODINIT_FUNC PyInit__native(void) {
    str_number = PyUnicode_InternFromString("number");
    str_rank = PyUnicode_InternFromString("_rank");
    if (!str_number || !str_rank) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", NATIVE_VERSION) < 0) Py_CLEAR(m);
    return m;
}
