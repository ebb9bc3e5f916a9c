/* recdtype.c - NumPy structured (record) dtypes: the process-wide table that
 * gives each distinct layout (field names, dtypes, offsets, sub-array
 * shapes, itemsize, alignment) one DType value past DT_COUNT, and its value
 * type.  Fixed-width strings (S12, U12) are entries without fields.  The table only grows (layouts are few); the runtime fills it from
 * NumPy dtype objects (runtime/dtype.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cj.h"

static CjRecord records[CJ_MAXREC];
static Type record_types[CJ_MAXREC], record_types_ro[CJ_MAXREC];
static int nrecords;

const CjRecord *
cj_record(DType dt)
{
    int k = (int)dt - DT_COUNT;
    return k >= 0 && k < nrecords ? &records[k] : NULL;
}

const CjField *
cj_record_field(DType dt, const char *name)
{
    const CjRecord *r = cj_record(dt);
    for (int i = 0; r && i < r->nfields; i++) {
        if (strcmp(r->fields[i].name, name) == 0) {
            return &r->fields[i];
        }
    }
    return NULL;
}

Type *
cj_record_type(DType dt)
{
    return &record_types[(int)dt - DT_COUNT];
}

Type *
cj_elem_type(DType dt, int readonly)
{
    if (!cj_is_record(dt)) {
        return cj_scalar(dt);
    }
    return readonly ? &record_types_ro[(int)dt - DT_COUNT] : cj_record_type(dt);
}

/* key := '{' { len ':' name '=' code [ '(' dims ')' ] '@' offset ';' } '}'
 *        itemsize    (a nested record's code is its own key).  NumPy's
 * alignment flag is left out: np.recarray drops it from an aligned dtype,
 * and NumPy copies between the two, so the layout alone is the C++ struct
 * and the code; the flag makes a twin entry that signatures name apart. */
static void
layout_key(Buf *b, const CjRecord *r)
{
    if (r->strkind) {
        buf_printf(b, "%c%d", r->strkind, r->itemsize);    /* S12, U48: bytes */
        return;
    }
    buf_putc(b, '{');
    for (int i = 0; i < r->nfields; i++) {
        const CjField *f = &r->fields[i];
        const CjRecord *inner = cj_record(f->dt);
        buf_printf(b, "%zu:%s=%s", strlen(f->name), f->name,
                   inner ? inner->key : cj_dtypes[f->dt].code);
        for (int d = 0; d < f->nsub; d++) {
            buf_printf(b, "%c%d", d ? ',' : '(', f->sub[d]);
        }
        buf_printf(b, "%s@%d;", f->nsub ? ")" : "", f->offset);
    }
    buf_printf(b, "}%d", r->itemsize);
}

/* a field's alignment as NumPy counts it (a complex: its part's) */
static int
numpy_align(const CjField *f)
{
    const CjRecord *inner = cj_record(f->dt);
    if (inner) {
        return inner->align;
    }
    int size = cj_dtypes[f->dt].size;
    return cj_dtypes[f->dt].kind == 'c' ? size / 2 : size;
}

/* The record's alignment from its layout: the largest of its fields' when
 * every field sits at a multiple of its own and the size is a multiple of
 * it, else 1.  packed: C++ would not place the fields at these offsets by
 * itself (a complex field is a cj_ucomplex, aligned as its parts). */
static void
layout_align(CjRecord *r)
{
    int al = 1, natural = 1;
    if (r->strkind) {
        r->align = 1;       /* bytes, written one by one (a U's code points too) */
        r->packed = 0;
        return;
    }
    for (int i = 0; i < r->nfields; i++) {
        const CjField *f = &r->fields[i];
        int a = numpy_align(f);
        const CjRecord *inner = cj_record(f->dt);
        int cpp = inner ? (inner->packed ? 0 : inner->align) : a;
        if (f->offset % a != 0) {
            al = 0;
        }
        if (!cpp || f->offset % cpp != 0) {
            natural = 0;
        }
        al = al && a > al ? a : al;
    }
    if (!al || r->itemsize % al != 0) {
        al = 1;
    }
    r->align = al;
    r->packed = !natural || r->itemsize % al != 0;
    for (int i = 0; !r->packed && i < r->nfields; i++) {
        const CjRecord *inner = cj_record(r->fields[i].dt);
        int cpp = inner ? inner->align : numpy_align(&r->fields[i]);
        r->packed = cpp > al;
    }
}

/* Fields lie inside the record.  A field off its alignment is fine (the
 * struct is packed, its members read byte by byte); a nested record is not,
 * since a variable of it is a pointer to its own struct, aligned as that. */
/* Is the field at a multiple of its alignment in every element of an array
 * (its offset and the record's alignment both are)?  Where not, the member
 * of the packed struct is read byte by byte, and nothing may point at it. */
int
cj_field_aligned(const CjRecord *r, const CjField *f)
{
    int a = numpy_align(f);
    return f->offset % a == 0 && r->align % a == 0;
}

static int
check_fields(const CjRecord *r, char *msg, size_t msglen)
{
    for (int i = 0; i < r->nfields; i++) {
        const CjField *f = &r->fields[i];
        int64_t end = f->offset + (int64_t)f->count * cj_dtypes[f->dt].size;
        if (f->offset < 0 || end > r->itemsize) {
            snprintf(msg, msglen, "field '%s' (bytes %d to %lld) lies outside the record's "
                     "%d bytes", f->name, f->offset, (long long)end, r->itemsize);
            return -1;
        }
        const CjRecord *inner = cj_record(f->dt);
        if (inner && (f->offset % inner->align != 0 || r->itemsize % inner->align != 0)) {
            snprintf(msg, msglen, "nested record field '%s' (aligned to %d bytes) at offset "
                     "%d of a record of %d bytes is not aligned in every element: make the "
                     "dtype with align=True", f->name, inner->align, f->offset, r->itemsize);
            return -1;
        }
    }
    return 0;
}

static char *
dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) {
        memcpy(c, s, n);
    }
    return c;
}

/* a copy of r in the table (names and key malloc'd, kept for the process) */
static int
add_record(const CjRecord *r, const char *key, char *msg, size_t msglen)
{
    CjRecord *slot = &records[nrecords];
    CjField *fields = calloc((size_t)(r->nfields ? r->nfields : 1), sizeof *fields);
    char *k = dup(key);
    if (!fields || !k) {
        free(fields);
        free(k);
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    for (int i = 0; i < r->nfields; i++) {
        fields[i] = r->fields[i];
        fields[i].name = dup(r->fields[i].name);
    }
    *slot = *r;
    slot->fields = fields;
    layout_align(slot);
    slot->key = k;
    uint64_t h = cj_hash64(key, strlen(key), 0x5ec0dULL);
    snprintf(slot->cname, sizeof slot->cname, "cj_rec_%012llx",
             (unsigned long long)(h & 0xffffffffffffULL));
    DTypeInfo *info = &cj_dtypes[DT_COUNT + nrecords];
    info->name = r->strkind ? (r->strkind == 'S' ? "bytes" : "unicode") : "record";
    info->ctype = slot->cname;
    info->code = slot->cname + 3;       /* "rec_<hex>" */
    info->kind = r->strkind ? r->strkind : 'V';
    info->size = r->itemsize;
    record_types[nrecords].kind = TY_RECORD;
    record_types[nrecords].dtype = (DType)(DT_COUNT + nrecords);
    record_types_ro[nrecords] = record_types[nrecords];
    record_types_ro[nrecords].readonly = 1;
    nrecords++;
    return 0;
}

int
cj_record_intern(const CjRecord *r, DType *out, char *msg, size_t msglen)
{
    if (check_fields(r, msg, msglen) < 0) {
        return -1;
    }
    Buf b;
    buf_init(&b);
    layout_key(&b, r);
    for (int i = 0; i < nrecords; i++) {
        if (strcmp(records[i].key, b.s) == 0 && records[i].np_aligned == r->np_aligned) {
            *out = (DType)(DT_COUNT + i);
            buf_free(&b);
            return 0;
        }
    }
    int ret = -1;
    if (nrecords == CJ_MAXREC) {
        snprintf(msg, msglen, "more than %d distinct record dtypes in one process", CJ_MAXREC);
    } else if (add_record(r, b.s, msg, msglen) == 0) {
        *out = (DType)(DT_COUNT + nrecords - 1);
        ret = 0;
    }
    buf_free(&b);
    return ret;
}

int
cj_record_twins(DType a, DType b)
{
    const CjRecord *x = cj_record(a), *y = cj_record(b);
    return x && y && strcmp(x->key, y->key) == 0;
}

/* Record(a: float64, b: int32, d: uint8[5]; 24 bytes): what messages and
 * signatures print; a dtype made with align=True ends "; 24 bytes, aligned)" */
void
cj_record_str(Buf *b, DType dt)
{
    const CjRecord *r = cj_record(dt);
    if (r->strkind) {       /* Numba's names: [char x 12], [unichr x 12] */
        buf_printf(b, "[%s x %d]", r->strkind == 'S' ? "char" : "unichr",
                   r->strkind == 'S' ? r->itemsize : r->itemsize / 4);
        return;
    }
    buf_puts(b, "Record(");
    for (int i = 0; i < r->nfields; i++) {
        const CjField *f = &r->fields[i];
        buf_printf(b, "%s%s: ", i ? ", " : "", f->name);
        if (cj_is_record(f->dt)) {
            cj_record_str(b, f->dt);
        } else {
            buf_puts(b, cj_dtypes[f->dt].name);
        }
        for (int d = 0; d < f->nsub; d++) {
            buf_printf(b, "%s%d", d ? ", " : "[", f->sub[d]);
        }
        buf_puts(b, f->nsub ? "]" : "");
    }
    buf_printf(b, "; %d bytes%s)", r->itemsize, r->np_aligned ? ", aligned" : "");
}
