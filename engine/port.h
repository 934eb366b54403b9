/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port.h - the engine's only window on its host.
 *
 * The engine (NIDs, expressions, the object model, UDSP, selection, TBF) is
 * one body of C compiled twice: into the kernel module and into a userspace
 * static library used by lnetd, the tests and the benchmarks.  Engine files
 * include this header and nothing else from the host, so that the same
 * source means the same thing in both homes.  Rules that keep it so:
 * fixed-size integer types, no floating point, no VLAs, no unbounded
 * recursion, no locking and no I/O (callers serialise), and no allocation on
 * the selection path.
 */
#ifndef LNE_PORT_H
#define LNE_PORT_H

#ifdef __KERNEL__

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/types.h>

static inline void *lne_zalloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

/* Not zeroed: for a buffer whose every byte is written before it is read. */
static inline void *lne_alloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static inline void *lne_realloc_array(void *p, size_t n, size_t size)
{
	return krealloc_array(p, n, size, GFP_KERNEL);
}

/* 64 unpredictable bits, for keying hashes a peer could otherwise aim at. */
static inline u64 lne_random_u64(void)
{
	return get_random_u64();
}

static inline void lne_free(void *p)
{
	kfree(p);
}

static inline void lne_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	sort(base, n, size, cmp, NULL);
}

/*
 * Round-robin state: selections that run side by side under a reader lock
 * all update it.  The clock counts them atomically; an object's "last
 * chosen" stamp and a peer's kept source NI are single words, read and
 * written once, so a racing reader sees the old value or the new one.
 */
typedef atomic_t lne_clock_t;

static inline u32 lne_clock_tick(lne_clock_t *c)
{
	return (u32)atomic_inc_return(c);
}

#define lne_shared_load(x)     READ_ONCE(x)
#define lne_shared_store(x, v) WRITE_ONCE(x, v)

#else /* userspace */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef int8_t s8;
typedef int16_t s16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif

static inline void *lne_zalloc(size_t size)
{
	return calloc(1, size);
}

/* Not zeroed: for a buffer whose every byte is written before it is read. */
static inline void *lne_alloc(size_t size)
{
	return malloc(size);
}

static inline void *lne_realloc_array(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, n * size);
}

/* 64 unpredictable bits, for keying hashes a peer could otherwise aim at. */
static inline u64 lne_random_u64(void)
{
	u64 v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (u64)(uintptr_t)&v ^ (u64)clock();
	return v;
}

static inline void lne_free(void *p)
{
	free(p);
}

static inline void lne_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	qsort(base, n, size, cmp);
}

/* Round-robin state (see the kernel's): lnetd serialises every call. */
typedef u32 lne_clock_t;

static inline u32 lne_clock_tick(lne_clock_t *c)
{
	return ++*c;
}

#define lne_shared_load(x)     (x)
#define lne_shared_store(x, v) ((x) = (v))

#endif /* __KERNEL__ */

#define LNE_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define lne_printf(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))

#endif /* LNE_PORT_H */
