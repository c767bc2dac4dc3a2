/* rulekit._fastpath: walk many numeric-only trees for many rows in C.
 *
 * The numpy evaluator (rulekit/ir/compiled.py) is the reference; this module is an optional
 * accelerator with the same arithmetic: a row goes to the left child iff x <= bound (the canonical
 * float64 boundary from rulekit.semantics), to the node's missing child when x is NaN.
 * Built with the buffer protocol only (no numpy headers); if it fails to build, rulekit still works.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static int get_buf(PyObject *obj, Buf *b, Py_ssize_t itemsize, const char *name) {
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    b->held = 1;
    if (b->view.itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: expected items of %zd bytes", name, itemsize);
        return -1;
    }
    return 0;
}

static void release(Buf *b) {
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

/* apply(X, n_rows, n_features, offsets, feature, bound, left, right, missing, is_leaf, out)
 * X: float64 [n_rows * n_features] row-major; offsets: int64 [n_trees + 1] node ranges of the
 * concatenated node arrays (child indices are local to their tree); out: int64 [n_trees * n_rows],
 * the local leaf index per (tree, row).
 */
static PyObject *apply(PyObject *self, PyObject *args) {
    PyObject *oX, *ooff, *ofeat, *obound, *oleft, *oright, *omiss, *oleaf, *oout;
    Py_ssize_t n_rows, n_features;
    if (!PyArg_ParseTuple(args, "OnnOOOOOOOO", &oX, &n_rows, &n_features, &ooff, &ofeat, &obound,
                          &oleft, &oright, &omiss, &oleaf, &oout))
        return NULL;
    Buf X = {0}, off = {0}, feat = {0}, bound = {0}, left = {0}, right = {0}, miss = {0}, leaf = {0},
        out = {0};
    PyObject *result = NULL;
    if (get_buf(oX, &X, 8, "X") < 0 || get_buf(ooff, &off, 8, "offsets") < 0 ||
        get_buf(ofeat, &feat, 8, "feature") < 0 || get_buf(obound, &bound, 8, "bound") < 0 ||
        get_buf(oleft, &left, 8, "left") < 0 || get_buf(oright, &right, 8, "right") < 0 ||
        get_buf(omiss, &miss, 8, "missing") < 0 || get_buf(oleaf, &leaf, 1, "is_leaf") < 0 ||
        get_buf(oout, &out, 8, "out") < 0)
        goto done;
    {
        const double *x = (const double *)X.view.buf;
        const int64_t *o = (const int64_t *)off.view.buf;
        const int64_t *f = (const int64_t *)feat.view.buf;
        const double *b = (const double *)bound.view.buf;
        const int64_t *l = (const int64_t *)left.view.buf;
        const int64_t *r = (const int64_t *)right.view.buf;
        const int64_t *m = (const int64_t *)miss.view.buf;
        const uint8_t *lf = (const uint8_t *)leaf.view.buf;
        int64_t *res = (int64_t *)out.view.buf;
        Py_ssize_t n_trees = off.view.len / 8 - 1;
        if (X.view.len / 8 < n_rows * n_features || out.view.len / 8 < n_rows * n_trees) {
            PyErr_SetString(PyExc_ValueError, "buffer too small");
            goto done;
        }
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t t = 0; t < n_trees; t++) {
            const int64_t base = o[t];
            const int64_t *ft = f + base;
            const double *bt = b + base;
            const int64_t *lt = l + base, *rt = r + base, *mt = m + base;
            const uint8_t *leaft = lf + base;
            for (Py_ssize_t i = 0; i < n_rows; i++) {
                const double *row = x + i * n_features;
                int64_t node = 0;
                while (!leaft[node]) {
                    double v = row[ft[node]];
                    if (v <= bt[node]) node = lt[node];
                    else if (isnan(v)) node = mt[node];
                    else node = rt[node];
                }
                res[t * n_rows + i] = node;
            }
        }
        Py_END_ALLOW_THREADS
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    release(&X); release(&off); release(&feat); release(&bound); release(&left);
    release(&right); release(&miss); release(&leaf); release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"apply", apply, METH_VARARGS, "Leaf index per (row, tree) for numeric-only trees."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastpath", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fastpath(void) { return PyModule_Create(&module); }
