/*
 * contacts_cmp.h — whether two contact lists are the same, contact for
 * contact: kinds, objects, ids and the toi's bits (the tests that compare two
 * ways of running a step ask for bit-for-bit equal results).
 */
#ifndef CLASH_TESTS_CONTACTS_CMP_H
#define CLASH_TESTS_CONTACTS_CMP_H

#include <string.h>

#include <clash/clash.h>

static inline int check_same_contacts(const clash_contact *a, size_t na, const clash_contact *b, size_t nb)
{
    if (na != nb) return 0;
    for (size_t i = 0; i < na; ++i) {
        const clash_contact *p = &a[i], *q = &b[i];
        if (p->kind != q->kind || p->obj_a != q->obj_a || p->id_a != q->id_a || p->obj_b != q->obj_b ||
            p->id_b != q->id_b || memcmp(&p->toi, &q->toi, sizeof p->toi))
            return 0;
    }
    return 1;
}

#endif
