// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of TLB flushes on real (or emulated) CPUs.
 *
 * Each case maps pages with vmap(), reads them on every CPU so that
 * every TLB holds the translations, points the PTEs at other pages,
 * flushes through flush_tlb_kernel_range() and reads again on every
 * CPU. A CPU that still sees an old page kept a stale TLB entry: the
 * flush missed it.
 *
 * The range sizes sit around the default thresholds of x86 (33 pages),
 * riscv (64) and arm64 (512), where a flush changes from per-page to
 * whole-TLB invalidation. QEMU's software TLB keeps entries until the
 * guest invalidates them, so a missed flush shows up there as well.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>

struct remap {
	unsigned long va;
	unsigned int nr;
	struct page **old, **new;
	unsigned long want;	/* first word of page i is want + i */
	atomic_t bad;
};

#define OLD_BASE	0x01d0000000UL
#define NEW_BASE	0x0e70000000UL

static void read_pages(void *arg)
{
	struct remap *r = arg;
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (READ_ONCE(*(unsigned long *)(r->va + i * PAGE_SIZE)) !=
		    r->want + i)
			atomic_inc(&r->bad);
}

/* Readings on all CPUs that did not find the expected pages. */
static int read_on_each_cpu(struct remap *r, unsigned long want)
{
	r->want = want;
	atomic_set(&r->bad, 0);
	on_each_cpu(read_pages, r, 1);
	return atomic_read(&r->bad);
}

static int clear_one(pte_t *pte, unsigned long addr, void *data)
{
	pte_clear(&init_mm, addr, pte);
	return 0;
}

static int retarget_one(pte_t *pte, unsigned long addr, void *data)
{
	struct remap *r = data;

	set_pte_at(&init_mm, addr, pte,
		   mk_pte(r->new[(addr - r->va) >> PAGE_SHIFT], PAGE_KERNEL));
	return 0;
}

static struct page **alloc_filled(struct kunit *test, unsigned int nr,
				  unsigned long base)
{
	struct page **pages = kunit_kcalloc(test, nr, sizeof(*pages),
					    GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		*(unsigned long *)page_address(pages[i]) = base + i;
	}
	return pages;
}

static void free_all(struct page **pages, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (pages[i])
			__free_page(pages[i]);
}

static const unsigned int kernel_range_pages[] = {
	1, 2, 32, 33, 34, 63, 64, 65, 511, 512, 513, 1024,
};

static void pages_desc(const unsigned int *nr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u pages", *nr);
}

KUNIT_ARRAY_PARAM(kernel_range, kernel_range_pages, pages_desc);

static void tlb_policy_arch_kernel_range(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	unsigned long size = (unsigned long)nr * PAGE_SIZE;
	struct remap r = { .nr = nr };
	int stale;

	r.old = alloc_filled(test, nr, OLD_BASE);
	r.new = alloc_filled(test, nr, NEW_BASE);
	r.va = (unsigned long)vmap(r.old, nr, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NE(test, r.va, 0);

	/* Every CPU caches the old translations. */
	KUNIT_ASSERT_EQ(test, read_on_each_cpu(&r, OLD_BASE), 0);

	if (IS_ENABLED(CONFIG_ARM64)) {
		/*
		 * arm64 requires break-before-make to change the output
		 * address of a live entry: invalidate, flush (the flush
		 * under test), then install. It never caches invalid
		 * entries, so the new entries need no further flush.
		 */
		apply_to_existing_page_range(&init_mm, r.va, size, clear_one,
					     &r);
		flush_tlb_kernel_range(r.va, r.va + size);
		/* (The _existing_ variant would skip the cleared entries.) */
		apply_to_page_range(&init_mm, r.va, size, retarget_one, &r);
	} else {
		/*
		 * Elsewhere a live entry may be changed in place and then
		 * flushed. (Going through an invalid entry would not do on
		 * riscv, which may cache invalid entries and would need a
		 * second flush that hides a failure of the first.)
		 */
		apply_to_page_range(&init_mm, r.va, size, retarget_one, &r);
		flush_tlb_kernel_range(r.va, r.va + size);
	}

	stale = read_on_each_cpu(&r, NEW_BASE);
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "%d stale reads of %u pages on %u CPUs", stale, nr,
			    num_online_cpus());

	vunmap((void *)r.va);
	free_all(r.old, nr);
	free_all(r.new, nr);
}

static int tlb_policy_arch_init(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	return 0;
}

static struct kunit_case tlb_policy_arch_cases[] = {
	KUNIT_CASE_PARAM(tlb_policy_arch_kernel_range, kernel_range_gen_params),
	{}
};

static struct kunit_suite tlb_policy_arch_suite = {
	.name = "tlb_policy_arch",
	.init = tlb_policy_arch_init,
	.test_cases = tlb_policy_arch_cases,
};

kunit_test_suite(tlb_policy_arch_suite);

MODULE_DESCRIPTION("KUnit tests of TLB flushes on all CPUs");
MODULE_LICENSE("GPL");
