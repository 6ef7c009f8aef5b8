/* u64map_internal.h: an open-addressing map from 64-bit keys to 64-bit values. */
#ifndef ADE_U64MAP_INTERNAL_H
#define ADE_U64MAP_INTERNAL_H

#include "common_internal.h"

/* Keys are anything but UINT64_MAX (the empty slot); linear probing, at
 * most half full, backward-shift deletion (no tombstones). The slots can be
 * walked directly: key[i] != UINT64_MAX for the n that are used. */
typedef struct ade__u64map {
  uint64_t *key, *val;
  size_t cap, n;
} ade__u64map;

/* The value slot of key, NULL if absent. */
uint64_t *ade__u64map_find(const ade__u64map *m, uint64_t key);
/* The value slot of key, inserted with value v if new (*isnew set); NULL: ENOMEM. */
uint64_t *ade__u64map_put(ade__u64map *m, uint64_t key, uint64_t v, int *isnew);
void ade__u64map_del(ade__u64map *m, uint64_t key);
/* Empty the map, keeping its slots. */
void ade__u64map_clear(ade__u64map *m);
void ade__u64map_free(ade__u64map *m);

#endif
