/* acquire_private.h: what the files of the acquisition module share:
 * acquire.c (the RFC 28 state) and child.c (what a child instance is
 * given).
 *
 * It must not hold anything the rest of libgrove should call: that goes
 * through acquire.h.
 */
#ifndef GROVE_ACQUIRE_PRIVATE_H
#define GROVE_ACQUIRE_PRIVATE_H

#include <jansson.h>

#include "acquire.h"

/* The idset s in range form as a new JSON string; NULL with ENOMEM. */
json_t *grovep_acquire_ids_json(const grove_idset_t *s);

#endif
