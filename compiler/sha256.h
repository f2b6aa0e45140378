/* sha256.h -- the ground floor: SHA-256 (sha256.c). Includes nothing of the compiler's.
 */
#ifndef GNNC_SHA256_H
#define GNNC_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* sha256.c: SHA-256 for content-addressed caches (build.c's CUDA objects). */
typedef struct {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t nbuf;
} Sha256;
void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
void sha256_hex(Sha256 *s, char out[65]); /* finishes s: 64 lower-case hex digits and a NUL */

#endif
