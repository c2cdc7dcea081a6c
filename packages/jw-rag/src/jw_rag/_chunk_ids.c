/* Chunk ids in C: what jw_rag.chunkers._pieces computes in Python as

       head + hashlib.sha1(prefix + f"{sp}.{sc}-{ep}.{ec}".encode()).hexdigest()[:12]

   with SHA-1 written out after FIPS 180-4, section 6.1. Hashing a few dozen
   bytes costs far less here than the object overhead of hashlib for each
   chunk. Optional: when this module is not built, the Python line above runs.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t h[5];
    unsigned char block[64];
    size_t used;    /* bytes waiting in block */
    uint64_t total; /* bytes hashed so far */
} sha1_ctx;

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void sha1_compress(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++) {
        w[t] = ((uint32_t)p[4 * t] << 24) | ((uint32_t)p[4 * t + 1] << 16) |
               ((uint32_t)p[4 * t + 2] << 8) | (uint32_t)p[4 * t + 3];
    }
    for (int t = 16; t < 80; t++) {
        w[t] = ROTL(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
#define ROUND(f, k)                                   \
    do {                                              \
        uint32_t tmp = ROTL(a, 5) + (f) + e + (k) + w[t]; \
        e = d;                                        \
        d = c;                                        \
        c = ROTL(b, 30);                              \
        b = a;                                        \
        a = tmp;                                      \
    } while (0)
    int t = 0;
    for (; t < 20; t++) ROUND((b & c) | (~b & d), 0x5A827999u);
    for (; t < 40; t++) ROUND(b ^ c ^ d, 0x6ED9EBA1u);
    for (; t < 60; t++) ROUND((b & c) | (b & d) | (c & d), 0x8F1BBCDCu);
    for (; t < 80; t++) ROUND(b ^ c ^ d, 0xCA62C1D6u);
#undef ROUND
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

static void sha1_init(sha1_ctx *ctx)
{
    ctx->h[0] = 0x67452301u;
    ctx->h[1] = 0xEFCDAB89u;
    ctx->h[2] = 0x98BADCFEu;
    ctx->h[3] = 0x10325476u;
    ctx->h[4] = 0xC3D2E1F0u;
    ctx->used = 0;
    ctx->total = 0;
}

static void sha1_update(sha1_ctx *ctx, const unsigned char *data, size_t len)
{
    ctx->total += len;
    while (len > 0) {
        size_t take = 64 - ctx->used;
        if (take > len) {
            take = len;
        }
        memcpy(ctx->block + ctx->used, data, take);
        ctx->used += take;
        data += take;
        len -= take;
        if (ctx->used == 64) {
            sha1_compress(ctx->h, ctx->block);
            ctx->used = 0;
        }
    }
}

static void sha1_final(sha1_ctx *ctx, unsigned char out[20])
{
    uint64_t bits = ctx->total * 8;
    ctx->block[ctx->used++] = 0x80;
    if (ctx->used > 56) { /* no room for the length: one more block */
        memset(ctx->block + ctx->used, 0, 64 - ctx->used);
        sha1_compress(ctx->h, ctx->block);
        ctx->used = 0;
    }
    memset(ctx->block + ctx->used, 0, 56 - ctx->used);
    for (int i = 0; i < 8; i++) {
        ctx->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    }
    sha1_compress(ctx->h, ctx->block);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}

/* What f"{value}" writes, appended to the hash: the digits of an int, and
   for anything else (bool, an int subclass, numpy's integers) its format(). */
static int hash_int(sha1_ctx *ctx, PyObject *value)
{
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (!overflow) {
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            unsigned char buf[24];
            unsigned char *end = buf + sizeof buf, *p = end;
            unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
            do {
                *--p = (unsigned char)('0' + u % 10);
                u /= 10;
            } while (u);
            if (v < 0) {
                *--p = '-';
            }
            sha1_update(ctx, p, (size_t)(end - p));
            return 0;
        }
    }
    PyObject *spec = PyUnicode_FromStringAndSize("", 0);
    if (spec == NULL) {
        return -1;
    }
    PyObject *text = PyObject_Format(value, spec);
    Py_DECREF(spec);
    if (text == NULL) {
        return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        Py_DECREF(text);
        return -1;
    }
    sha1_update(ctx, (const unsigned char *)s, (size_t)n);
    Py_DECREF(text);
    return 0;
}

/* head + the first 12 hex digits of SHA-1(prefix + "sp.sc-ep.ec"), or NULL
   with an exception set. */
static PyObject *one_id(const unsigned char *prefix, size_t prefix_len, PyObject *head,
                        PyObject *const span[4])
{
    sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, prefix, prefix_len);
    static const unsigned char seps[3] = {'.', '-', '.'};
    for (int i = 0; i < 4; i++) {
        if (i) {
            sha1_update(&ctx, &seps[i - 1], 1);
        }
        if (hash_int(&ctx, span[i]) < 0) {
            return NULL;
        }
    }
    unsigned char digest[20];
    sha1_final(&ctx, digest);
    static const char hex[] = "0123456789abcdef";
    Py_ssize_t n = PyUnicode_GET_LENGTH(head);
    PyObject *out = PyUnicode_New(n + 12, PyUnicode_MAX_CHAR_VALUE(head));
    if (out == NULL) {
        return NULL;
    }
    if (n && PyUnicode_CopyCharacters(out, 0, head, 0, n) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    for (int i = 0; i < 6; i++) {
        PyUnicode_WRITE(kind, data, n + 2 * i, hex[digest[i] >> 4]);
        PyUnicode_WRITE(kind, data, n + 2 * i + 1, hex[digest[i] & 15]);
    }
    return out;
}

static int check_prefix_head(PyObject *prefix, PyObject *head)
{
    if (!PyBytes_Check(prefix) || !PyUnicode_Check(head)) {
        PyErr_SetString(PyExc_TypeError, "needs prefix: bytes and head: str");
        return -1;
    }
    return 0;
}

/* span_id(prefix: bytes, head: str, sp, sc, ep, ec) -> str */
static PyObject *span_id(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "span_id() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    if (check_prefix_head(args[0], args[1]) < 0) {
        return NULL;
    }
    return one_id((const unsigned char *)PyBytes_AS_STRING(args[0]),
                  (size_t)PyBytes_GET_SIZE(args[0]), args[1], args + 2);
}

/* span_ids(prefix: bytes, head: str, pieces: list) -> list[str] | None: the
   id of each piece, a tuple (sp, sc, ep, ec, extra); None when an item is
   not such a tuple (the caller's own loop then reports it as it would). */
static PyObject *span_ids(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "span_ids() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (check_prefix_head(args[0], args[1]) < 0) {
        return NULL;
    }
    PyObject *pieces = args[2];
    if (!PyList_Check(pieces)) {
        Py_RETURN_NONE;
    }
    Py_ssize_t count = PyList_GET_SIZE(pieces);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(pieces, i);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 5) {
            Py_RETURN_NONE;
        }
    }
    /* A copy holds the tuples: formatting an odd position runs Python code,
       which could change the caller's list meanwhile. */
    PyObject *held = PyList_GetSlice(pieces, 0, count);
    if (held == NULL) {
        return NULL;
    }
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        Py_DECREF(held);
        return NULL;
    }
    const unsigned char *prefix = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    size_t prefix_len = (size_t)PyBytes_GET_SIZE(args[0]);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(held, i);
        PyObject *id = one_id(prefix, prefix_len, args[1], PySequence_Fast_ITEMS(item));
        if (id == NULL) {
            Py_DECREF(out);
            Py_DECREF(held);
            return NULL;
        }
        PyList_SET_ITEM(out, i, id);
    }
    Py_DECREF(held);
    return out;
}

static PyMethodDef methods[] = {
    {"span_id", (PyCFunction)(void (*)(void))span_id, METH_FASTCALL,
     "span_id(prefix, head, sp, sc, ep, ec): head + the first 12 hex digits of "
     "SHA-1(prefix + b'sp.sc-ep.ec')."},
    {"span_ids", (PyCFunction)(void (*)(void))span_ids, METH_FASTCALL,
     "span_ids(prefix, head, pieces): span_id of each (sp, sc, ep, ec, extra) "
     "tuple of the list pieces; None if an item is not such a tuple."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "jw_rag._chunk_ids", "Chunk ids (SHA-1 of a span) in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__chunk_ids(void)
{
    return PyModule_Create(&module);
}
