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
 * riscv (64) and arm64 (511), where a flush changes from per-page to
 * whole-TLB invalidation. QEMU's software TLB keeps entries until the
 * guest invalidates them, so a CPU that a flush misses shows up there.
 * A flush that reaches a CPU but invalidates too little may not: QEMU
 * drops a riscv vCPU's whole TLB on every sfence.vma, whatever its
 * operands.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/hugetlb.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/mmu_context.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/tlb_policy.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/tlbflush.h>
#include <trace/events/tlb_policy.h>
#ifdef CONFIG_RISCV
#include <linux/cacheflush.h>
#include <asm/sbi.h>
#endif
#ifdef CONFIG_X86
#include <asm/set_memory.h>
#endif

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

static void free_all(struct page **pages, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (pages[i])
			__free_page(pages[i]);
}

struct page_set {
	struct page **pages;
	unsigned int nr;
};

static void page_set_free(void *arg)
{
	struct page_set *set = arg;

	free_all(set->pages, set->nr);
}

/*
 * @nr pages, page i holding @base + i in its first word, freed when the
 * test ends, however it ends.
 */
static struct page **alloc_filled(struct kunit *test, unsigned int nr,
				  unsigned long base)
{
	struct page_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct page **pages = kunit_kcalloc(test, nr, sizeof(*pages),
					    GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	set->pages = pages;
	set->nr = nr;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, page_set_free,
							set), 0);
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		*(unsigned long *)page_address(pages[i]) = base + i;
	}
	return pages;
}

static const unsigned int kernel_range_pages[] = {
	1, 2, 32, 33, 34, 63, 64, 65, 511, 512, 513, 1024,
};

static void pages_desc(const unsigned int *nr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u pages", *nr);
}

KUNIT_ARRAY_PARAM(kernel_range, kernel_range_pages, pages_desc);

/*
 * Point the PTEs of @r at @r->new, flushing [@start, @end) on every CPU
 * with flush_tlb_kernel_range(), the flush under test.
 */
static void remap_flush(struct remap *r, unsigned long start, unsigned long end)
{
	unsigned long size = (unsigned long)r->nr * PAGE_SIZE;

	if (IS_ENABLED(CONFIG_ARM64)) {
		/*
		 * arm64 requires break-before-make to change the output
		 * address of a live entry: invalidate, flush (the flush
		 * under test), then install. It never caches invalid
		 * entries, so the new entries need no further flush.
		 */
		apply_to_existing_page_range(&init_mm, r->va, size, clear_one,
					     r);
		flush_tlb_kernel_range(start, end);
		/* (The _existing_ variant would skip the cleared entries.) */
		apply_to_page_range(&init_mm, r->va, size, retarget_one, r);
	} else {
		/*
		 * Elsewhere a live entry may be changed in place and then
		 * flushed. (Going through an invalid entry would not do on
		 * riscv, which may cache invalid entries and would need a
		 * second flush that hides a failure of the first.)
		 */
		apply_to_page_range(&init_mm, r->va, size, retarget_one, r);
		flush_tlb_kernel_range(start, end);
	}
}

static void remap_vunmap(void *va)
{
	vunmap(va);
}

/*
 * Fill @r->nr old and new pages and map the old ones at @r->va, for a
 * case to remap. All of it is undone when the test ends, however it ends;
 * remap_unmap() undoes the mapping earlier.
 */
static void remap_map(struct kunit *test, struct remap *r)
{
	void *va;

	r->old = alloc_filled(test, r->nr, OLD_BASE);
	r->new = alloc_filled(test, r->nr, NEW_BASE);
	va = vmap(r->old, r->nr, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, remap_vunmap, va),
			0);
	r->va = (unsigned long)va;
}

static void remap_unmap(struct kunit *test, struct remap *r)
{
	kunit_release_action(test, remap_vunmap, (void *)r->va);
}

static void tlb_policy_arch_kernel_range(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	unsigned long size = (unsigned long)nr * PAGE_SIZE;
	struct remap r = { .nr = nr };
	int stale;

	remap_map(test, &r);

	/* Every CPU caches the old translations. */
	KUNIT_ASSERT_EQ(test, read_on_each_cpu(&r, OLD_BASE), 0);
	remap_flush(&r, r.va, r.va + size);
	stale = read_on_each_cpu(&r, NEW_BASE);
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "%d stale reads of %u pages on %u CPUs", stale, nr,
			    num_online_cpus());

	remap_unmap(test, &r);
}

/*
 * A flush of one page's length that starts in the middle of a page
 * covers two pages: both must be flushed on every CPU.
 */
static void tlb_policy_arch_kernel_range_unaligned(struct kunit *test)
{
	struct remap r = { .nr = 2 };
	unsigned long start;
	int stale;

	remap_map(test, &r);
	KUNIT_ASSERT_EQ(test, read_on_each_cpu(&r, OLD_BASE), 0);

	start = r.va + PAGE_SIZE / 2;
	remap_flush(&r, start, start + PAGE_SIZE);

	stale = read_on_each_cpu(&r, NEW_BASE);
	KUNIT_EXPECT_EQ_MSG(test, stale, 0, "%d stale reads of 2 pages on %u CPUs",
			    stale, num_online_cpus());
	remap_unmap(test, &r);
}

#ifdef CONFIG_HOTPLUG_CPU
/* Take one CPU offline and online again, until told to stop. */
struct hotplug_churn {
	unsigned int cpu;
	int err;
	atomic_t cycles;
};

/*
 * Bring @cpu back. A riscv hart may still be stopping in the firmware
 * ("may not have stopped"), which then refuses to start it: try again
 * for up to a second.
 */
static int hotplug_add(unsigned int cpu)
{
	int err, tries;

	for (tries = 0; tries < 50; tries++) {
		err = add_cpu(cpu);
		if (!err)
			break;
		msleep(20);
	}
	return err;
}

static int hotplug_churn_fn(void *arg)
{
	struct hotplug_churn *c = arg;
	int err = 0;

	while (!kthread_should_stop() && !err) {
		err = remove_cpu(c->cpu);
		if (!err)
			err = hotplug_add(c->cpu);
		if (!err)
			atomic_inc(&c->cycles);
	}
	WRITE_ONCE(c->err, err);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

#define HOTPLUG_PAGES	64

/*
 * Kernel-range flushes while a CPU goes offline and comes back: each
 * flush must reach every CPU that is online when it reads, whichever
 * CPUs were online when it was issued. The pages are flipped between two
 * sets of frames, 64 pages at a time, at least 16 times and until the CPU
 * has gone down and up three times (ten seconds at most).
 */
static void tlb_policy_arch_hotplug_kernel_range(struct kunit *test)
{
	struct hotplug_churn c = { .cpu = nr_cpu_ids };
	struct remap r = { .nr = HOTPLUG_PAGES };
	unsigned long end, size = HOTPLUG_PAGES * PAGE_SIZE;
	unsigned int cpu, here, i = 0;
	struct page **set[2];
	struct task_struct *t;
	int stale = 0;

	set[0] = alloc_filled(test, r.nr, OLD_BASE);
	set[1] = alloc_filled(test, r.nr, NEW_BASE);
	r.old = set[0];
	r.va = (unsigned long)vmap(set[0], r.nr, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NE(test, r.va, 0);

	migrate_disable();
	here = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != here && cpu_is_hotpluggable(cpu))
			c.cpu = cpu;
	t = ERR_PTR(-ENODEV);
	if (c.cpu < nr_cpu_ids)
		t = kthread_run(hotplug_churn_fn, &c, "tlbp_hotplug");
	if (!IS_ERR(t)) {
		stale += read_on_each_cpu(&r, OLD_BASE);
		end = jiffies + 10 * HZ;
		for (i = 0; i < 16 || (atomic_read(&c.cycles) < 3 &&
				       !READ_ONCE(c.err) &&
				       time_before(jiffies, end)); i++) {
			r.new = set[(i + 1) % 2];
			remap_flush(&r, r.va, r.va + size);
			stale += read_on_each_cpu(&r, (i % 2) ? OLD_BASE :
						  NEW_BASE);
		}
		kthread_stop(t);
		if (!cpu_online(c.cpu))
			hotplug_add(c.cpu);
	}
	migrate_enable();
	vunmap((void *)r.va);

	if (IS_ERR(t))
		kunit_skip(test, "no other CPU can go offline");
	/* A CPU that refuses to go offline at all is not a flush failure. */
	if (!atomic_read(&c.cycles) && c.err)
		kunit_skip(test, "CPU %u cannot go offline: %d", c.cpu, c.err);
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "%d stale reads over %u flushes, CPU %u hotplugged %d times",
			    stale, i, c.cpu, atomic_read(&c.cycles));
	KUNIT_EXPECT_EQ(test, c.err, 0);
	KUNIT_EXPECT_GE(test, atomic_read(&c.cycles), 1);
	KUNIT_EXPECT_TRUE(test, cpu_online(c.cpu));
}
#endif

/*
 * User address spaces: which counters a flush moves, on an architecture
 * that flushes through the policy. The flushes are of an mm with no
 * mappings, made active on CPUs with kthread_use_mm(); what they
 * invalidate does not matter here, only how they reach the other CPUs.
 */
#define USER_ADDR	(16UL << 20)

struct user_mm {
	struct mm_struct *mm;
	struct vm_area_struct vma;
};

static void mm_put_action(void *mm)
{
	mmput(mm);
}

/* An mm for the test, put when the test ends, however it ends. */
static struct mm_struct *test_mm(struct kunit *test)
{
	struct mm_struct *mm = mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mm_put_action,
							mm), 0);
	return mm;
}

static void user_mm_init(struct kunit *test, struct user_mm *u)
{
	if (!tlb_policy_arch_get())
		kunit_skip(test, "this architecture does not flush through tlb_policy");
	u->mm = test_mm(test);
	vma_init(&u->vma, u->mm);
	u->vma.vm_start = USER_ADDR;
	u->vma.vm_end = USER_ADDR + PMD_SIZE;
}

static long use_mm_here(void *mm)
{
	kthread_use_mm(mm);
	kthread_unuse_mm(mm);
	return 0;
}

/*
 * Flush @u three ways on this CPU, with @u in use here as well, and return
 * how much each of this CPU's counters moved. Called with migration
 * disabled.
 */
static void user_flushes(struct user_mm *u, long *delta)
{
	unsigned long before[TLB_STAT_NR];
	int i;

	kthread_use_mm(u->mm);
	preempt_disable();
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = this_cpu_read(tlb_policy_stats.v[i]);
	flush_tlb_mm(u->mm);
	flush_tlb_range(&u->vma, USER_ADDR, USER_ADDR + PAGE_SIZE);
	flush_tlb_page(&u->vma, USER_ADDR);
	for (i = 0; i < TLB_STAT_NR; i++)
		delta[i] = this_cpu_read(tlb_policy_stats.v[i]) - before[i];
	preempt_enable();
	kthread_unuse_mm(u->mm);
}

/*
 * Each of the three flushes counts once, as the policy says it must reach
 * the other CPUs: not at all when no other CPU can hold entries (local,
 * and the remote work elided), else by IPI or by broadcast. The one-page
 * range becomes a full flush only with tlbi_max_ops=0, and so does the
 * page flush, which every architecture here flushes as a range of one.
 */
#define USER_FULL_AT_0	2

/*
 * The core's decision for a user flush of a test mm (no shared ASID). On
 * x86 a flush that no other CPU needs has no broadcast form.
 */
static enum tlb_flush_reach user_reach(bool others)
{
	struct tlb_flush_facts f = {
		.others = others,
		.no_broadcast = IS_ENABLED(CONFIG_X86) && !others,
	};
	unsigned int why = 0;

	return tlb_policy_reach(f, &why);
}

static void expect_user_counts(struct kunit *test, const long *d, bool others)
{
	enum tlb_flush_reach reach = user_reach(others);

	/*
	 * x86 trims mm_cpumask(): the first flush that reaches a CPU which
	 * only holds the mm lazily makes it leave the mm, after which the
	 * flushes are local. Only the first one must reach it.
	 */
	if (IS_ENABLED(CONFIG_X86) && reach != TLB_REACH_LOCAL) {
		/* tlbi_method=ipi: native IPIs, never INVLPGB or pv. */
		if (reach == TLB_REACH_IPI) {
			KUNIT_EXPECT_GE(test, d[TLB_STAT_IPI], 1);
			KUNIT_EXPECT_EQ(test, d[TLB_STAT_BROADCAST], 0);
		} else {
			KUNIT_EXPECT_GE(test, d[TLB_STAT_IPI] +
					d[TLB_STAT_BROADCAST], 1);
		}
		KUNIT_EXPECT_EQ(test, d[TLB_STAT_LOCAL] + d[TLB_STAT_IPI] +
				d[TLB_STAT_BROADCAST], 3);
		KUNIT_EXPECT_EQ(test, d[TLB_STAT_ELIDED], d[TLB_STAT_LOCAL]);
		KUNIT_EXPECT_EQ(test, d[TLB_STAT_FULL],
				tlb_policy_max_ops() ? 0 : USER_FULL_AT_0);
		return;
	}
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_LOCAL], reach == TLB_REACH_LOCAL ? 3 : 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_ELIDED], reach == TLB_REACH_LOCAL ? 3 : 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_IPI], reach == TLB_REACH_IPI ? 3 : 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_BROADCAST],
			reach == TLB_REACH_BROADCAST ? 3 : 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_FULL],
			tlb_policy_max_ops() ? 0 : USER_FULL_AT_0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_YOUNG_SKIPPED], 0);
}

/* An mm only ever active on this CPU. */
static void tlb_policy_arch_user_local(struct kunit *test)
{
	struct user_mm u;
	long d[TLB_STAT_NR];

	user_mm_init(test, &u);
	migrate_disable();
	user_flushes(&u, d);
	expect_user_counts(test, d, false);
	/* Still only here: the first flushes changed nothing. */
	user_flushes(&u, d);
	migrate_enable();
	expect_user_counts(test, d, false);
}

/*
 * Flush here an mm that has also been active on another CPU, after it was
 * active here (@here_first) or before: either way, the flush must reach
 * the other CPU, even though this CPU may have been the first.
 */
static void user_flushes_after_other(struct kunit *test, bool here_first)
{
	struct mm_struct *away = NULL;
	struct user_mm u;
	long d[TLB_STAT_NR];
	unsigned int other;

	user_mm_init(test, &u);
	/*
	 * On arm64 the other CPU's TLB keeps the mm's ASID-tagged entries
	 * after it switches to another mm, and it may come back without a
	 * flush: having switched away must not drop it from the flush.
	 */
	if (IS_ENABLED(CONFIG_ARM64))
		away = test_mm(test);
	migrate_disable();
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (here_first) {
		user_flushes(&u, d);
		expect_user_counts(test, d, false);
	}
	if (other < nr_cpu_ids) {
		work_on_cpu(other, use_mm_here, u.mm);
		if (away)
			work_on_cpu(other, use_mm_here, away);
		user_flushes(&u, d);
	}
	migrate_enable();
	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);
	expect_user_counts(test, d, true);
}

/* An mm first active on this CPU, then on another. */
static void tlb_policy_arch_user_moved(struct kunit *test)
{
	user_flushes_after_other(test, true);
}

/* An mm that has been active on another CPU before. */
static void tlb_policy_arch_user_several(struct kunit *test)
{
	user_flushes_after_other(test, false);
}

/*
 * A user mapping that every other CPU has read through the mm, zapped on
 * this CPU by MADV_DONTNEED, the way user space unmaps: each other CPU
 * must then read zeroes. The readers are kernel threads bound to their
 * CPUs that use the mm and spin, with preemption disabled and the mm's
 * ASID live, between their two reads, so their TLBs keep what the first
 * read loaded: a CPU that the flush did not reach, whatever the method,
 * reads the old page again. This checks that every CPU that may hold
 * entries was flushed, not only how many flushes were counted.
 */
/*
 * Where a flush under test runs: in the test's task, with interrupts
 * disabled, or in softirq context (a timer on this CPU). arm64's ipi
 * method cannot wait for IPIs in the last two and falls back to a
 * broadcast.
 */
enum flush_ctx { FLUSH_TASK, FLUSH_IRQS_OFF, FLUSH_SOFTIRQ };

struct user_remote {
	struct mm_struct *mm, *away;
	const struct cpumask *cpus;	/* readers only there, if set */
	unsigned int nr, readers;
	refcount_t ref;
	atomic_t ready, done, stale, bad;
	bool go;
	enum flush_ctx ctx;	/* where user_remote_batch() flushes */
	pte_t *saved;	/* PTEs cleared by user_remote_clear(), or NULL */
};

/*
 * The test and each reader hold a reference, so that a reader that
 * outlives a test which gave up waiting still finds @u and its mms.
 */
static struct user_remote *user_remote_alloc(unsigned int nr)
{
	struct user_remote *u = kzalloc(sizeof(*u), GFP_KERNEL);

	if (!u)
		return NULL;
	u->mm = mm_alloc();
	if (!u->mm) {
		kfree(u);
		return NULL;
	}
	u->nr = nr;
	refcount_set(&u->ref, 1);
	return u;
}

static void user_remote_put(struct user_remote *u)
{
	if (!refcount_dec_and_test(&u->ref))
		return;
	if (u->away)
		mmput(u->away);
	mmput(u->mm);
	kfree(u->saved);
	kfree(u);
}

static unsigned long __user *user_word(unsigned int i)
{
	return (unsigned long __user *)(USER_ADDR + i * PAGE_SIZE);
}

static int user_remote_reader(void *arg)
{
	struct user_remote *u = arg;
	unsigned long v, end;
	unsigned int i;
	bool go;

	kthread_use_mm(u->mm);
	for (i = 0; i < u->nr; i++)
		if (get_user(v, user_word(i)) || v != OLD_BASE + i)
			atomic_inc(&u->bad);
	/* Asked to leave: the mm's entries stay, its ASID is not live. */
	if (u->away) {
		kthread_unuse_mm(u->mm);
		kthread_use_mm(u->away);
	}
	preempt_disable();
	atomic_inc(&u->ready);
	/*
	 * Spin with preemption off, so that nothing else runs here
	 * meanwhile, but for five seconds at most: a test that never lets
	 * go (another reader could not start) must not stall this CPU
	 * longer.
	 */
	end = jiffies + 5 * HZ;
	for (;;) {
		/* Pairs with the release in the test: the zap is complete. */
		go = smp_load_acquire(&u->go);
		if (go || time_after(jiffies, end))
			break;
		cpu_relax();
	}
	preempt_enable();
	if (!go) {
		pr_warn("tlbp_reader/%u: not released after 5 s\n",
			raw_smp_processor_id());
		atomic_inc(&u->bad);
		if (u->away)
			kthread_unuse_mm(u->away);
		else
			kthread_unuse_mm(u->mm);
		goto out;
	}
	if (u->away) {
		kthread_unuse_mm(u->away);
		goto out;
	}
	for (i = 0; i < u->nr; i++) {
		int err;

		/* Cleared PTEs must fault, and stay clear. */
		if (u->saved)
			pagefault_disable();
		err = get_user(v, user_word(i));
		if (u->saved)
			pagefault_enable();
		if (err && !u->saved)
			atomic_inc(&u->bad);
		else if (err)
			continue;
		else if (v == OLD_BASE + i)
			atomic_inc(&u->stale);
		else if (v || u->saved)
			atomic_inc(&u->bad);
	}
	kthread_unuse_mm(u->mm);
out:
	atomic_inc(&u->done);
	user_remote_put(u);
	return 0;
}

static const unsigned int user_remote_pages[] = { 1, 33, 64, 511, 512, 513 };

KUNIT_ARRAY_PARAM(user_remote, user_remote_pages, pages_desc);

/* Wait up to ten seconds for @a to reach @n. */
static bool wait_for(atomic_t *a, int n)
{
	unsigned long end = jiffies + 10 * HZ;

	while (atomic_read(a) < n && time_before(jiffies, end))
		schedule_timeout_uninterruptible(1);
	return atomic_read(a) >= n;
}

/*
 * Map @u->nr pages of @u->mm on this CPU, with the mm in use here, and
 * have a reader on every other online CPU load them into its TLB and spin.
 * Called with migration disabled. Return 0 once every reader is spinning.
 */
static int user_remote_start(struct user_remote *u)
{
	unsigned long size = u->nr * PAGE_SIZE, addr;
	unsigned int cpu, i, here = smp_processor_id();
	struct task_struct *t;
	int ret;

	kthread_use_mm(u->mm);
	addr = vm_mmap(NULL, USER_ADDR, size, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0);
	ret = addr == USER_ADDR ? 0 : -ENOMEM;
	/*
	 * Small pages only: a THP would leave no PTEs to clear, and
	 * clearing one PTE of an arm64 contpte block unfolds it with a
	 * flush of its own, which would hide the one under test.
	 */
	if (!ret && IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		ret = do_madvise(u->mm, USER_ADDR, size, MADV_NOHUGEPAGE);
	for (i = 0; i < u->nr && !ret; i++)
		ret = put_user(OLD_BASE + i, user_word(i));

	for_each_online_cpu(cpu) {
		if (cpu == here || ret ||
		    (u->cpus && !cpumask_test_cpu(cpu, u->cpus)))
			continue;
		refcount_inc(&u->ref);
		t = kthread_create_on_cpu(user_remote_reader, u, cpu,
					  "tlbp_reader/%u");
		if (IS_ERR(t)) {
			user_remote_put(u);
			ret = PTR_ERR(t);
			break;
		}
		wake_up_process(t);
		u->readers++;
	}
	if (!ret && !wait_for(&u->ready, u->readers))
		ret = -ETIMEDOUT;
	return ret;
}

/* Zap the pages on this CPU; @d gets how much the counters moved. */
static int user_remote_zap(struct user_remote *u, long *d)
{
	unsigned long before[TLB_STAT_NR];
	int i, ret;

	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = tlb_policy_stats_sum(&tlb_policy_stats, i);
	ret = do_madvise(u->mm, USER_ADDR, u->nr * PAGE_SIZE, MADV_DONTNEED);
	for (i = 0; i < TLB_STAT_NR; i++)
		d[i] = tlb_policy_stats_sum(&tlb_policy_stats, i) - before[i];
	return ret;
}

static int restore_one(pte_t *pte, unsigned long addr, void *data)
{
	struct user_remote *u = data;

	set_pte_at(u->mm, addr, pte,
		   u->saved[(addr - USER_ADDR) >> PAGE_SHIFT]);
	return 0;
}

#ifdef CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH
static int save_and_clear(pte_t *pte, unsigned long addr, void *data)
{
	struct user_remote *u = data;

	u->saved[(addr - USER_ADDR) >> PAGE_SHIFT] =
		ptep_get_and_clear(u->mm, addr, pte);
	return 0;
}

/*
 * Clear the PTEs of @u, saving them in @u->saved for the restore, and,
 * with a @batch, queue the mm on it as reclaim does.
 */
static int user_remote_clear(struct user_remote *u,
			     struct arch_tlbflush_unmap_batch *batch)
{
	unsigned long size = u->nr * PAGE_SIZE;
	int ret;

	u->saved = kcalloc(u->nr, sizeof(*u->saved), GFP_KERNEL);
	if (!u->saved)
		return -ENOMEM;
	mmap_write_lock(u->mm);
	ret = apply_to_existing_page_range(u->mm, USER_ADDR, size,
					   save_and_clear, u);
	if (batch)
		arch_tlbbatch_add_pending(batch, u->mm, USER_ADDR,
					  USER_ADDR + size);
	mmap_write_unlock(u->mm);
	return ret;
}
#endif

#ifdef CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH
struct softirq_call {
	struct timer_list timer;
	void (*fn)(void *arg);
	void *arg;
	struct completion done;
};

static void softirq_call_fn(struct timer_list *t)
{
	struct softirq_call *c = timer_container_of(c, t, timer);

	c->fn(c->arg);
	complete(&c->done);
}

/* Run @fn(@arg) on this CPU in @ctx. Called with migration disabled. */
static void run_in(enum flush_ctx ctx, void (*fn)(void *arg), void *arg)
{
	struct softirq_call c = { .fn = fn, .arg = arg };

	switch (ctx) {
	case FLUSH_TASK:
		fn(arg);
		break;
	case FLUSH_IRQS_OFF:
		local_irq_disable();
		fn(arg);
		local_irq_enable();
		break;
	case FLUSH_SOFTIRQ:
		init_completion(&c.done);
		timer_setup_on_stack(&c.timer, softirq_call_fn, 0);
		c.timer.expires = jiffies;
		add_timer_on(&c.timer, smp_processor_id());
		wait_for_completion(&c.done);
		timer_delete_sync(&c.timer);
		timer_destroy_on_stack(&c.timer);
		break;
	}
}

static void batch_flush_fn(void *batch)
{
	arch_tlbbatch_flush(batch);
}

/*
 * Unmap the pages the way reclaim does, without the rest of reclaim:
 * clear each PTE, queue the mm on a batch with arch_tlbbatch_add_pending()
 * and flush the batch with arch_tlbbatch_flush(), in @u->ctx. The readers
 * then find the PTEs clear, or an old page if a CPU kept its entries. @d
 * gets how much the counters moved.
 */
static int user_remote_batch(struct user_remote *u, long *d)
{
	unsigned long before[TLB_STAT_NR];
	struct arch_tlbflush_unmap_batch *batch;
	int i, ret;

	batch = kzalloc_obj(*batch);
	if (!batch)
		return -ENOMEM;
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = tlb_policy_stats_sum(&tlb_policy_stats, i);
	ret = user_remote_clear(u, batch);
	run_in(u->ctx, batch_flush_fn, batch);
	for (i = 0; i < TLB_STAT_NR; i++)
		d[i] = tlb_policy_stats_sum(&tlb_policy_stats, i) - before[i];
	kfree(batch);
	return ret;
}
#endif

/* Put back the PTEs that an unmap saved in @u->saved. */
static void user_remote_restore(struct user_remote *u)
{
	mmap_write_lock(u->mm);
	/* The PTEs are none: the _existing_ variant would skip them all. */
	apply_to_page_range(u->mm, USER_ADDR, u->nr * PAGE_SIZE, restore_one,
			    u);
	mmap_write_unlock(u->mm);
}

/* Let the readers look again, and wait for them. */
static void user_remote_release(struct user_remote *u)
{
	/* The readers look again only once the zap is complete. */
	smp_store_release(&u->go, true);
	wait_for(&u->done, u->readers);
	/*
	 * Put the PTEs back even when a reader is late: rmap and the RSS
	 * counters still count those pages as mapped, and the mm's exit must
	 * find them. A late reader then at worst counts a stale read, in a
	 * run that has already failed.
	 */
	if (u->saved)
		user_remote_restore(u);
}

/* What the readers of one struct user_remote read. */
struct remote_result {
	unsigned int readers, nr;
	int done, bad, stale;
};

/* Take what the readers read. Drops the test's reference to @u. */
static void user_remote_collect(struct user_remote *u, struct remote_result *r)
{
	r->readers = u->readers;
	r->nr = u->nr;
	r->done = atomic_read(&u->done);
	r->bad = atomic_read(&u->bad);
	r->stale = atomic_read(&u->stale);
	user_remote_put(u);
}

static void remote_result_check(struct kunit *test,
				const struct remote_result *r, int ret)
{
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ_MSG(test, r->done, r->readers, "readers did not finish");
	KUNIT_EXPECT_EQ(test, r->bad, 0);
	KUNIT_EXPECT_EQ_MSG(test, r->stale, 0,
			    "%d stale reads of %u pages on %u other CPUs",
			    r->stale, r->nr, r->readers);
}

/* Check what the readers read. Drops the test's reference to @u. */
static void user_remote_check(struct kunit *test, struct user_remote *u,
			      int ret)
{
	struct remote_result r;

	user_remote_collect(u, &r);
	remote_result_check(test, &r, ret);
}

/*
 * Let the readers look again, wait for them and check what they read.
 * Drops the test's reference to @u.
 */
static void user_remote_finish(struct kunit *test, struct user_remote *u,
			       int ret)
{
	user_remote_release(u);
	kthread_unuse_mm(u->mm);
	migrate_enable();
	user_remote_check(test, u, ret);
}

/*
 * The mm ran on every CPU: the zap reached them as the method says. The
 * counts are of every CPU, so a kernel flush meanwhile (counted as a
 * broadcast on arm64 whatever the method) may add to them; nothing is
 * elided, as no user process runs while the built-in suites do.
 */
static void expect_remote_counts(struct kunit *test, const long *d)
{
	bool invlpgb = false;

#ifdef CONFIG_X86
	/* Batches go by INVLPGB, other mm flushes by IPI, under auto. */
	invlpgb = cpu_feature_enabled(X86_FEATURE_INVLPGB);
#endif
	if (!tlb_policy_arch_get())
		return;
	if (invlpgb) {
		KUNIT_EXPECT_GE(test, d[TLB_STAT_IPI] + d[TLB_STAT_BROADCAST],
				1);
	} else if (tlb_policy_method() == TLBI_METHOD_IPI) {
		KUNIT_EXPECT_GE(test, d[TLB_STAT_IPI], 1);
	} else {
		KUNIT_EXPECT_GE(test, d[TLB_STAT_BROADCAST], 1);
		/*
		 * x86 without INVLPGB flushes kernel ranges by IPI whatever
		 * the method, and one may run meanwhile.
		 */
		if (!IS_ENABLED(CONFIG_X86))
			KUNIT_EXPECT_EQ(test, d[TLB_STAT_IPI], 0);
	}
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_ELIDED], 0);
}

/*
 * Run @unmap on this CPU while every other CPU spins on the pages: each
 * of their reads must fault.
 */
static void user_remote_run(struct kunit *test, unsigned int nr,
			    int (*unmap)(struct user_remote *u, long *d),
			    enum flush_ctx ctx, long *d)
{
	struct user_remote *u;
	int ret;

	u = user_remote_alloc(nr);
	KUNIT_ASSERT_NOT_NULL(test, u);
	u->ctx = ctx;
	migrate_disable();
	ret = user_remote_start(u);
	if (!ret)
		ret = unmap(u, d);
	user_remote_finish(test, u, ret);
}

static void tlb_policy_arch_user_remote(struct kunit *test)
{
	long d[TLB_STAT_NR] = {};

	user_remote_run(test, *(const unsigned int *)test->param_value,
			user_remote_zap, FLUSH_TASK, d);
	expect_remote_counts(test, d);
}

#ifdef CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH
/* The same, unmapped through the batched flush of reclaim. */
static void tlb_policy_arch_user_batch(struct kunit *test)
{
	long d[TLB_STAT_NR] = {};

	user_remote_run(test, *(const unsigned int *)test->param_value,
			user_remote_batch, FLUSH_TASK, d);
	expect_remote_counts(test, d);
}

/*
 * One batch that covers two mms, as reclaim builds from the folios of two
 * processes: each mm has readers on its own half of the other CPUs, and
 * the batch must reach both halves. A third mm, used on this CPU only, is
 * added last: what the batch has to do for the first two must survive an
 * mm that needs nothing remote. (arm64 defers anything to the end of the
 * batch only under tlbi_method=ipi; otherwise it issues the TLBIs as each
 * mm is added, and this checks those.)
 */
static void tlb_policy_arch_user_batch_two(struct kunit *test)
{
	struct arch_tlbflush_unmap_batch *batch;
	struct mm_struct *in_use = NULL;
	struct user_remote *u[3] = {};
	struct remote_result r[3];
	struct cpumask *half[3];
	unsigned int cpu, here, k, n = 0;
	int ret = 0;

	half[0] = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);
	half[1] = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);
	half[2] = kunit_kzalloc(test, cpumask_size(), GFP_KERNEL);	/* none */
	batch = kunit_kzalloc(test, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, half[0] && half[1] && half[2] && batch);
	for (k = 0; k < 3; k++) {
		u[k] = user_remote_alloc(4);
		if (!u[k])
			ret = -ENOMEM;
		else
			u[k]->cpus = half[k];
	}

	migrate_disable();
	here = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != here)
			cpumask_set_cpu(cpu, half[n++ % 2]);
	if (n < 2 && !ret)
		ret = -ENODEV;
	/* Map and read each mm in turn, with it in use on this CPU. */
	for (k = 0; k < 3 && !ret; k++) {
		if (in_use)
			kthread_unuse_mm(in_use);
		in_use = u[k]->mm;
		ret = user_remote_start(u[k]);
	}
	for (k = 0; k < 3 && !ret; k++)
		ret = user_remote_clear(u[k], batch);
	if (!ret)
		arch_tlbbatch_flush(batch);
	for (k = 0; k < 3; k++)
		if (u[k])
			user_remote_release(u[k]);
	if (in_use)
		kthread_unuse_mm(in_use);
	migrate_enable();

	if (ret) {
		for (k = 0; k < 3; k++)
			if (u[k])
				user_remote_put(u[k]);
		if (ret == -ENODEV)
			kunit_skip(test, "needs at least three CPUs");
		KUNIT_FAIL(test, "setting up the three mms failed: %d", ret);
		return;
	}
	/* Every set of readers is put before any is checked. */
	for (k = 0; k < 3; k++)
		user_remote_collect(u[k], &r[k]);
	for (k = 0; k < 3; k++)
		remote_result_check(test, &r[k], 0);
}
#endif

/*
 * Clearing the accessed bit of @nr PTEs that map one block (a contpte
 * block when @nr > 1, with only the middle entry young): one flush of the
 * block, done, waited for or skipped as the policy's young mode says. The
 * PTEs are a local copy; only the flush matters.
 */
static void young_check(struct kunit *test, unsigned int nr)
{
	unsigned long before[TLB_STAT_NR];
	pte_t *ptes;
	unsigned int mid = nr / 2, i;
	enum tlbi_young young;
	struct user_mm u;
	struct page *page;
	long d[TLB_STAT_NR];
	bool follows, skipped;
	int ret;

	user_mm_init(test, &u);
	/* A power-of-two kmalloc is aligned to its size, as a block must be. */
	ptes = kunit_kcalloc(test, nr, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	/* The frames are never accessed, only named; all of them ours. */
	page = alloc_pages(GFP_KERNEL, get_order(nr * PAGE_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, page);
	for (i = 0; i < nr; i++) {
		ptes[i] = pfn_pte(page_to_pfn(page) + i, PAGE_KERNEL);
		if (i == mid)
			ptes[i] = pte_mkyoung(ptes[i]);
		else
			ptes[i] = pte_mkold(ptes[i]);
#ifdef CONFIG_ARM64_CONTPTE
		if (nr > 1)
			ptes[i] = pte_mkcont(ptes[i]);
#endif
	}

	migrate_disable();
	kthread_use_mm(u.mm);
	preempt_disable();
	young = tlb_policy_young();
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = this_cpu_read(tlb_policy_stats.v[i]);
	ret = ptep_clear_flush_young(&u.vma, USER_ADDR + mid * PAGE_SIZE,
				     &ptes[mid]);
	for (i = 0; i < TLB_STAT_NR; i++)
		d[i] = this_cpu_read(tlb_policy_stats.v[i]) - before[i];
	preempt_enable();
	kthread_unuse_mm(u.mm);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, ret, 1);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_FALSE_MSG(test, pte_young(ptes[i]),
				       "entry %u of %u still young", i, nr);
	/*
	 * Only arm64 follows tlbi_young=. The other architectures clear the
	 * bit and flush nothing, as before, and record nothing either.
	 */
	follows = IS_ENABLED(CONFIG_ARM64);
	/* arm64 invalidates only this CPU for nosync under the IPI method. */
	skipped = follows && (young == TLBI_YOUNG_NONE ||
			      (young == TLBI_YOUNG_NOSYNC &&
			       tlb_policy_method() == TLBI_METHOD_IPI));
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_YOUNG_SKIPPED], skipped ? 1 : 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_YOUNG_WAITED],
			follows && young == TLBI_YOUNG_SYNC ? 1 : 0);
	/* One flush, whichever way it reaches the other CPUs. */
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_LOCAL] + d[TLB_STAT_BROADCAST] +
			d[TLB_STAT_IPI],
			follows && young != TLBI_YOUNG_NONE ? 1 : 0);
	/* Old entries need no flush at all. */
	KUNIT_EXPECT_EQ(test, ptep_clear_flush_young(&u.vma,
						     USER_ADDR + mid * PAGE_SIZE,
						     &ptes[mid]), 0);
	__free_pages(page, get_order(nr * PAGE_SIZE));
}

static void tlb_policy_arch_young(struct kunit *test)
{
	young_check(test, 1);
}

#ifdef CONFIG_ARM64_CONTPTE
/* A contpte block: one flush of the whole block, by the same young mode. */
static void tlb_policy_arch_young_contpte(struct kunit *test)
{
	young_check(test, CONT_PTES);
}
#endif

#ifdef CONFIG_ARM64
/*
 * arm64 decided on its own before it asked the policy, in
 * __flush_tlb_range_limit_excess(), for user and kernel ranges alike: a
 * range was flushed whole from MAX_DVM_OPS strides on without range
 * operations, and above MAX_TLBI_RANGE_PAGES pages with them.
 */
static bool arm64_full_before(unsigned long pages, unsigned long stride,
			      bool range)
{
	if (range)
		return pages > MAX_TLBI_RANGE_PAGES;
	return pages >= (MAX_DVM_OPS * stride) >> PAGE_SHIFT;
}

static const unsigned long arm64_range_pages[] = {
	0, 1, 2, 3, 31, 32, 33, 511, 512, 513, 1023, 1024, 1025,
	PTRS_PER_PTE * (MAX_DVM_OPS - 1), PTRS_PER_PTE * MAX_DVM_OPS,
	PTRS_PER_PTE * (MAX_DVM_OPS + 1),
	MAX_TLBI_RANGE_PAGES - 1, MAX_TLBI_RANGE_PAGES,
	MAX_TLBI_RANGE_PAGES + 1,
};

/*
 * With the default max_ops, every user and kernel range gets the decision
 * it got before, for page, PMD and PUD strides, with and without range
 * operations and LPA2, including a range of exactly MAX_DVM_OPS strides
 * (">=" before, "more than MAX_DVM_OPS - 1" now), and a range of more than
 * MAX_TLBI_RANGE_PAGES pages in fewer than MAX_DVM_OPS strides without
 * range operations (not flushed whole, before or now).
 */
static void tlb_policy_arch_arm64_default_decisions(struct kunit *test)
{
	static const unsigned long strides[] = { PAGE_SIZE, PMD_SIZE, PUD_SIZE };
	unsigned long start = 64 * PUD_SIZE, pages, stride, nr;
	unsigned int i, k;
	bool range, lpa2, before, after;

	for (i = 0; i < ARRAY_SIZE(arm64_range_pages) * 12; i++) {
		nr = arm64_range_pages[i / 12];
		k = i % 12;
		stride = strides[k % 3];
		range = (k / 3) & 1;
		lpa2 = (k / 3) & 2;
		pages = nr * (stride >> PAGE_SHIFT);
		before = arm64_full_before(pages, stride, range);
		after = __flush_tlb_range_kind(start, pages, stride,
					       TLBI_DEFAULT_MAX_OPS, range,
					       lpa2) == TLB_FLUSH_FULL;
		KUNIT_EXPECT_EQ_MSG(test, after, before,
				    "%lu x %lu bytes, range %d lpa2 %d", nr,
				    stride, range, lpa2);
	}
}

struct arm64_ops_case {
	unsigned long start_page, pages;
	bool range, lpa2;
	unsigned long ops;
};

/* What __flush_tlb_range_op() issues, counted by hand (4KB pages). */
static const struct arm64_ops_case arm64_ops_cases[] = {
	{ 0, 1, false, false, 1 },
	{ 0, 512, false, false, 512 },
	{ 0, 1, true, false, 1 },
	{ 0, 2, true, false, 1 },	/* scale 0, num 0 */
	{ 0, 3, true, false, 2 },	/* 2 + 1 */
	{ 0, 64, true, false, 1 },	/* scale 1, num 0 */
	{ 0, 512, true, false, 1 },	/* scale 1, num 7 */
	{ 0, 513, true, false, 2 },
	{ 0, 1025, true, false, 2 },	/* 1024 at scale 1, + 1 */
	{ 0, 2047, true, false, 3 },	/* 1984 + 62 + 1 */
	{ 0, MAX_TLBI_RANGE_PAGES, true, false, 1 },
	{ 1, 64, true, false, 1 },	/* alignment only matters with LPA2 */
	{ 1, 64, true, true, 17 },	/* 15 to reach 64KB, 48, 1 */
	{ 16, 64, true, true, 1 },
};

static void tlb_policy_arch_arm64_nr_ops(struct kunit *test)
{
	const struct arm64_ops_case *c;
	unsigned int i;

	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "the table is for 4KB pages");

	for (i = 0; i < ARRAY_SIZE(arm64_ops_cases); i++) {
		c = &arm64_ops_cases[i];
		KUNIT_EXPECT_EQ_MSG(test,
				    __flush_tlb_range_nr_ops(c->start_page * PAGE_SIZE,
							     c->pages, PAGE_SIZE,
							     c->range, c->lpa2),
				    c->ops, "case %u", i);
	}
}

/* The boundary around max_ops, counted in TLBI operations. */
/*
 * tlbi_max_ops= at and around the number of operations a range needs: 100
 * pages from a PMD boundary are 100 page operations, or two range
 * operations (64 pages, then 18 * 2).
 */
struct max_ops_case {
	unsigned long pages;
	unsigned int max_ops;
	bool range;
	enum tlb_flush_kind kind;
};

static const struct max_ops_case max_ops_cases[] = {
	{ 100,  99, false, TLB_FLUSH_FULL },
	{ 100, 100, false, TLB_FLUSH_RANGE },
	{ 100, 101, false, TLB_FLUSH_RANGE },
	{ 100,   0, true,  TLB_FLUSH_FULL },
	{ 100,   1, true,  TLB_FLUSH_FULL },
	{ 100,   2, true,  TLB_FLUSH_RANGE },
	{ 100,   3, true,  TLB_FLUSH_RANGE },
	{   0,   0, true,  TLB_FLUSH_NONE },
};

static void max_ops_desc(const struct max_ops_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%lu pages, max_ops %u, %s",
		 c->pages, c->max_ops, c->range ? "range" : "no range");
}

KUNIT_ARRAY_PARAM(max_ops, max_ops_cases, max_ops_desc);

static void tlb_policy_arch_arm64_max_ops(struct kunit *test)
{
	const struct max_ops_case *c = test->param_value;
	unsigned long start = 64 * PMD_SIZE;

	KUNIT_EXPECT_EQ(test, __flush_tlb_range_kind(start, c->pages, PAGE_SIZE,
						     c->max_ops, c->range,
						     false),
			c->kind);
}

/*
 * ASID rollovers, forced with arm64_asid_rollover_for_test() while the
 * readers on the other CPUs hold the mm's pages in their TLBs and this CPU
 * runs another mm. When the readers still run the mm (@stay), its ASID is
 * reserved: it keeps the number, their TLBs keep its entries until their
 * next context switch, so it must stay "several" and a zap here must reach
 * them; resetting the record there would leave them stale. When they ran
 * another mm at the rollover, no CPU can use the mm's old entries before
 * it flushes its TLB, so its record starts again from this CPU.
 */
static void asid_rollover_check(struct kunit *test, bool stay)
{
	struct mm_struct *other = test_mm(test);
	long d[TLB_STAT_NR] = {};
	struct user_remote *u;
	u64 id = 0, asid = 0;
	unsigned int here, active;
	int ret;

	u = user_remote_alloc(1);
	KUNIT_ASSERT_NOT_NULL(test, u);
	if (!stay) {
		mmget(other);
		u->away = other;
	}
	migrate_disable();
	here = smp_processor_id();
	ret = user_remote_start(u);
	if (!ret) {
		id = atomic64_read(&u->mm->context.id);
		asid = ASID(u->mm);
		/* Leave the mm, roll over, come back. */
		kthread_unuse_mm(u->mm);
		kthread_use_mm(other);
		kthread_unuse_mm(other);
		arm64_asid_rollover_for_test();
		kthread_use_mm(u->mm);
		active = mm_active_who(READ_ONCE(u->mm->context.active_cpu));
		KUNIT_EXPECT_NE(test, atomic64_read(&u->mm->context.id), id);
		if (stay) {
			KUNIT_EXPECT_EQ(test, ASID(u->mm), asid);
			KUNIT_EXPECT_EQ(test, active, MM_ACTIVE_SEVERAL);
		} else {
			KUNIT_EXPECT_EQ(test, active, here + 1);
		}
		ret = user_remote_zap(u, d);
	}
	user_remote_finish(test, u, ret);
	if (stay) {
		expect_remote_counts(test, d);
	} else if (tlb_policy_is_auto()) {
		/*
		 * Only the automatic method reads the record. The ipi
		 * method's mask never forgets a CPU, rollover or not.
		 */
		KUNIT_EXPECT_GE(test, d[TLB_STAT_ELIDED], 1);
	}
}

static void tlb_policy_arch_arm64_asid_rollover(struct kunit *test)
{
	asid_rollover_check(test, true);
}

static void tlb_policy_arch_arm64_asid_rollover_away(struct kunit *test)
{
	asid_rollover_check(test, false);
}

/*
 * Flushes that the ipi method cannot send as IPIs, because it could not
 * wait for them: a batch flushed and a range flushed with interrupts
 * disabled or in softirq context. They must still reach every CPU (the
 * method broadcasts instead) without a warning. Under the other methods
 * the same flushes are broadcast anyway; the cases then only check that
 * they work in those contexts.
 */
struct ctx_case {
	enum flush_ctx ctx;
	bool batch;
	const char *name;
};

static const struct ctx_case ctx_cases[] = {
	{ FLUSH_IRQS_OFF, true, "batch, irqs off" },
	{ FLUSH_SOFTIRQ, true, "batch, softirq" },
	{ FLUSH_IRQS_OFF, false, "range, irqs off" },
	{ FLUSH_SOFTIRQ, false, "range, softirq" },
};

static void ctx_case_desc(const struct ctx_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(ctx, ctx_cases, ctx_case_desc);

struct range_flush {
	struct vm_area_struct vma;
	unsigned long end;
};

static void range_flush_fn(void *arg)
{
	struct range_flush *f = arg;

	flush_tlb_range(&f->vma, USER_ADDR, f->end);
}

/* Clear the PTEs, then flush them as a range in @u->ctx. */
static int user_remote_range_ctx(struct user_remote *u, long *d)
{
	struct range_flush f = { .end = USER_ADDR + u->nr * PAGE_SIZE };
	unsigned long before[TLB_STAT_NR];
	int i, ret;

	vma_init(&f.vma, u->mm);
	f.vma.vm_start = USER_ADDR;
	f.vma.vm_end = f.end;
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = tlb_policy_stats_sum(&tlb_policy_stats, i);
	ret = user_remote_clear(u, NULL);
	run_in(u->ctx, range_flush_fn, &f);
	for (i = 0; i < TLB_STAT_NR; i++)
		d[i] = tlb_policy_stats_sum(&tlb_policy_stats, i) - before[i];
	return ret;
}

static void tlb_policy_arch_arm64_flush_ctx(struct kunit *test)
{
	const struct ctx_case *c = test->param_value;
	bool warned = test_taint(TAINT_WARN);
	long d[TLB_STAT_NR] = {};

	user_remote_run(test, 4, c->batch ? user_remote_batch :
			user_remote_range_ctx, c->ctx, d);
	/* An IPI waited for from here warns (smp_call_function_many_cond()). */
	KUNIT_EXPECT_TRUE_MSG(test, warned || !test_taint(TAINT_WARN),
			      "a WARN fired during the flush");
	if (tlb_policy_method() != TLBI_METHOD_IPI) {
		expect_remote_counts(test, d);
	} else if (c->batch) {
		/* Counted as an ipi flush when queued, as all batches are. */
		KUNIT_EXPECT_GE(test, d[TLB_STAT_IPI], 1);
	} else {
		KUNIT_EXPECT_GE(test, d[TLB_STAT_BROADCAST], 1);
		KUNIT_EXPECT_EQ(test, d[TLB_STAT_IPI], 0);
	}
}

/*
 * A pinned ASID may be used by a device (SVA through an SMMU), which only
 * broadcast TLBIs reach: flushes of its mm are broadcast under every
 * method, even while the mm has only been active on this CPU.
 */
static void tlb_policy_arch_arm64_pinned(struct kunit *test)
{
	long d[TLB_STAT_NR] = {};
	unsigned long asid;
	struct user_mm u;

	user_mm_init(test, &u);
	migrate_disable();
	kthread_use_mm(u.mm);
	asid = arm64_mm_context_get(u.mm);
	kthread_unuse_mm(u.mm);
	if (asid) {
		user_flushes(&u, d);
		arm64_mm_context_put(u.mm);
	}
	migrate_enable();
	if (!asid)
		kunit_skip(test, "no ASID can be pinned");
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_BROADCAST], 3);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_LOCAL], 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_IPI], 0);
}
#endif /* CONFIG_ARM64 */

#ifdef CONFIG_RISCV
/*
 * riscv's decisions against the expressions they replace (the code
 * before this series,
 * local_flush_tlb_range_asid()): one sfence.vma by address when the size
 * is at most the stride, everything for FLUSH_TLB_MAX_SIZE, else
 * DIV_ROUND_UP(size, stride) operations unless that is above the
 * threshold.
 */
static enum tlb_flush_kind riscv_old_kind(unsigned long size,
					  unsigned long stride,
					  unsigned long threshold,
					  unsigned long *nr)
{
	*nr = 1;
	if (size <= stride)
		return TLB_FLUSH_RANGE;
	if (size == FLUSH_TLB_MAX_SIZE)
		return TLB_FLUSH_FULL;
	*nr = DIV_ROUND_UP(size, stride);
	return *nr > threshold ? TLB_FLUSH_FULL : TLB_FLUSH_RANGE;
}

struct riscv_case {
	const char *name;
	unsigned long start, size, stride;
	unsigned int max_ops;
	enum tlb_flush_kind kind;
	unsigned long nr;
	const char *differs;	/* why the old code decided otherwise */
};

#define RV_BASE		SZ_1G
#define RV_4K(n)	((n) * SZ_4K)

static const struct riscv_case riscv_cases[] = {
	{ "all", 0, FLUSH_TLB_MAX_SIZE, SZ_4K, 64, TLB_FLUSH_FULL, 0, NULL },
	{ "all, max_ops 0", 0, FLUSH_TLB_MAX_SIZE, SZ_4K, 0, TLB_FLUSH_FULL, 0,
	  NULL },
	{ "all, 2M stride", 0, FLUSH_TLB_MAX_SIZE, SZ_2M, 64, TLB_FLUSH_FULL,
	  0, NULL },
	{ "empty", RV_BASE, 0, SZ_4K, 64, TLB_FLUSH_NONE, 0,
	  "it flushed one page for an empty range" },
	{ "empty, unaligned", RV_BASE + 0x800, 0, SZ_4K, 64, TLB_FLUSH_NONE, 0,
	  "it flushed one page for an empty range" },
	{ "all but one byte", 0, FLUSH_TLB_MAX_SIZE - 1, SZ_4K, 64,
	  TLB_FLUSH_FULL, 0, "DIV_ROUND_UP() wrapped to 0: it flushed nothing" },
	{ "end below start", RV_BASE, 0UL - SZ_4K, SZ_4K, 64, TLB_FLUSH_FULL, 0,
	  NULL },
	{ "1 page", RV_BASE, RV_4K(1), SZ_4K, 64, TLB_FLUSH_RANGE, 1, NULL },
	{ "63 pages", RV_BASE, RV_4K(63), SZ_4K, 64, TLB_FLUSH_RANGE, 63, NULL },
	{ "64 pages", RV_BASE, RV_4K(64), SZ_4K, 64, TLB_FLUSH_RANGE, 64, NULL },
	{ "65 pages", RV_BASE, RV_4K(65), SZ_4K, 64, TLB_FLUSH_FULL, 0, NULL },
	{ "64 pages, max_ops 63", RV_BASE, RV_4K(64), SZ_4K, 63,
	  TLB_FLUSH_FULL, 0, NULL },
	{ "63 pages, max_ops 63", RV_BASE, RV_4K(63), SZ_4K, 63,
	  TLB_FLUSH_RANGE, 63, NULL },
	{ "65 pages, max_ops 65", RV_BASE, RV_4K(65), SZ_4K, 65,
	  TLB_FLUSH_RANGE, 65, NULL },
	{ "2 pages, max_ops 0", RV_BASE, RV_4K(2), SZ_4K, 0, TLB_FLUSH_FULL, 0,
	  NULL },
	{ "1 page, max_ops 0", RV_BASE, RV_4K(1), SZ_4K, 0, TLB_FLUSH_FULL, 0,
	  "it flushed by address, which CIP-1200 patches into a full flush" },
	{ "unaligned, 1 page long", RV_BASE + 0x800, RV_4K(1), SZ_4K, 64,
	  TLB_FLUSH_RANGE, 2, "it missed the second page" },
	{ "unaligned, 64 pages long", RV_BASE + 0x800, RV_4K(64), SZ_4K, 64,
	  TLB_FLUSH_FULL, 0, "it missed the 65th page" },
	{ "unaligned, 10 pages long", RV_BASE + 0x10, RV_4K(10), SZ_4K, 64,
	  TLB_FLUSH_RANGE, 11, "it missed the last page" },
	/* A 64K NAPOT page is flushed at 4K: every PTE of it. */
	{ "1 64K NAPOT page", RV_BASE, SZ_64K, SZ_4K, 64, TLB_FLUSH_RANGE, 16,
	  NULL },
	{ "4 64K NAPOT pages", RV_BASE, 4 * SZ_64K, SZ_4K, 64, TLB_FLUSH_RANGE,
	  64, NULL },
	{ "5 64K NAPOT pages", RV_BASE, 5 * SZ_64K, SZ_4K, 64, TLB_FLUSH_FULL,
	  0, NULL },
	{ "1 2M page", RV_BASE, SZ_2M, SZ_2M, 64, TLB_FLUSH_RANGE, 1, NULL },
	{ "64 2M pages", RV_BASE, 64 * SZ_2M, SZ_2M, 64, TLB_FLUSH_RANGE, 64,
	  NULL },
	{ "65 2M pages", RV_BASE, 65 * SZ_2M, SZ_2M, 64, TLB_FLUSH_FULL, 0,
	  NULL },
	{ "1 1G page", RV_BASE, SZ_1G, SZ_1G, 64, TLB_FLUSH_RANGE, 1, NULL },
	{ "2 1G pages", RV_BASE, 2UL * SZ_1G, SZ_1G, 64, TLB_FLUSH_RANGE, 2, NULL },
	{ "2 1G pages, max_ops 1", RV_BASE, 2UL * SZ_1G, SZ_1G, 1,
	  TLB_FLUSH_FULL, 0, NULL },
	/*
	 * At the ceiling, a page table's worth (pmd_free_pte_page(),
	 * hugetlb PMD unsharing) is still a full flush, at any stride.
	 */
	{ "a PTE table at the ceiling", RV_BASE, RV_4K(PTRS_PER_PTE), SZ_4K,
	  PTRS_PER_PTE - 1, TLB_FLUSH_FULL, 0, NULL },
	{ "one PTE less at the ceiling", RV_BASE, RV_4K(PTRS_PER_PTE - 1),
	  SZ_4K, PTRS_PER_PTE - 1, TLB_FLUSH_RANGE, PTRS_PER_PTE - 1, NULL },
	{ "a PMD table of 2M pages at the ceiling", RV_BASE,
	  PTRS_PER_PTE * SZ_2M, SZ_2M, PTRS_PER_PTE - 1, TLB_FLUSH_FULL, 0,
	  NULL },
};

static void riscv_case_desc(const struct riscv_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(riscv_decide, riscv_cases, riscv_case_desc);

static void tlb_policy_arch_riscv_decisions(struct kunit *test)
{
	const struct riscv_case *c = test->param_value;
	enum tlb_flush_kind kind, old;
	unsigned long nr, old_nr;

	kind = riscv_tlb_flush_kind(c->start, c->size, c->stride, c->max_ops,
				    &nr);
	KUNIT_EXPECT_EQ(test, kind, c->kind);
	if (c->kind == TLB_FLUSH_RANGE)
		KUNIT_EXPECT_EQ(test, nr, c->nr);

	old = riscv_old_kind(c->size, c->stride, c->max_ops, &old_nr);
	if (c->differs) {
		KUNIT_EXPECT_TRUE_MSG(test, old != kind ||
				      (kind == TLB_FLUSH_RANGE && old_nr != nr),
				      "the old code decided the same, but %s",
				      c->differs);
		return;
	}
	KUNIT_EXPECT_EQ(test, old, kind);
	if (kind == TLB_FLUSH_RANGE)
		KUNIT_EXPECT_EQ(test, old_nr, nr);
}

/*
 * The description riscv registers, for each answer of the probes: the
 * "sbi" method exists only with a working remote fence, "auto" is the
 * fence only when IPIs go through SBI as well (the rule before), and the
 * CIP-1200 erratum forces max_ops to 0 over the user and over debugfs.
 */
static void tlb_policy_arch_riscv_describe(struct kunit *test)
{
	struct tlb_policy_req sbi = { .method = "sbi" };
	struct tlb_policy_req ops = { .max_ops = "64" };
	struct tlb_policy_req none = {};
	struct tlb_policy_arch d;
	struct tlb_policy p;

	riscv_tlb_policy_describe(&d, false, false, false);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &sbi, &p),
			TLB_POLICY_UNSUP_METHOD);
	KUNIT_EXPECT_EQ(test, p.method, TLBI_METHOD_IPI);
	KUNIT_EXPECT_TRUE(test, p.is_auto);
	KUNIT_EXPECT_EQ(test, p.max_ops, 64);
	KUNIT_EXPECT_EQ(test, p.young, TLBI_YOUNG_NONE);

	/* IPIs through SBI, but no fence: flush by IPI. */
	riscv_tlb_policy_describe(&d, false, true, false);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &none, &p), 0);
	KUNIT_EXPECT_EQ(test, p.method, TLBI_METHOD_IPI);

	riscv_tlb_policy_describe(&d, true, false, false);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &none, &p), 0);
	KUNIT_EXPECT_EQ(test, p.method, TLBI_METHOD_IPI);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &sbi, &p), 0);
	KUNIT_EXPECT_EQ(test, p.method, TLBI_METHOD_BROADCAST);
	KUNIT_EXPECT_FALSE(test, p.is_auto);

	riscv_tlb_policy_describe(&d, true, true, false);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &none, &p), 0);
	KUNIT_EXPECT_EQ(test, p.method, TLBI_METHOD_BROADCAST);
	KUNIT_EXPECT_TRUE(test, p.is_auto);

	riscv_tlb_policy_describe(&d, true, true, true);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &none, &p), 0);
	KUNIT_EXPECT_EQ(test, p.max_ops, 0);
	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&d, &ops, &p),
			TLB_POLICY_ERRATUM_MAX_OPS);
	KUNIT_EXPECT_EQ(test, p.max_ops, 0);
	KUNIT_EXPECT_EQ(test, tlb_policy_set_max_ops(&d, &p, "64"), -EINVAL);
	KUNIT_EXPECT_EQ(test, p.max_ops, 0);
	KUNIT_EXPECT_EQ(test, tlb_policy_set_max_ops(&d, &p, "0"), 0);
}

/* The policy riscv registered matches what this system probed. */
static void tlb_policy_arch_riscv_registered(struct kunit *test)
{
	const struct tlb_policy_arch *a = tlb_policy_arch_get();

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_STREQ(test, a->name, "riscv");
	KUNIT_EXPECT_EQ(test, !!(a->methods & BIT(TLBI_METHOD_BROADCAST)),
			sbi_rfence_available());
	KUNIT_EXPECT_EQ(test, a->auto_method == TLBI_METHOD_BROADCAST,
			sbi_rfence_available() && riscv_use_sbi_for_rfence());
	KUNIT_EXPECT_EQ(test, !!a->erratum, riscv_tlb_cip_1200);
	if (riscv_tlb_cip_1200)
		KUNIT_EXPECT_EQ(test, tlb_policy_max_ops(), 0);
}

static atomic_t riscv_fence_calls;

static int riscv_fence_fails(const struct cpumask *cpu_mask,
			     unsigned long start, unsigned long size,
			     unsigned long asid)
{
	atomic_inc(&riscv_fence_calls);
	return -EIO;
}

/* Put back riscv_tlb_fence_usable, and a fence failure this test made. */
static void riscv_fence_restore(void *usable)
{
	WRITE_ONCE(riscv_tlb_fence_usable, (bool)(unsigned long)usable);
	WRITE_ONCE(sbi_rfence_failed, false);
}

/*
 * From here on, this test's thread finds the remote sfence.vma failing;
 * the fence's state (@usable, and no failure) is put back at its end.
 */
static void riscv_fence_fail_here(struct kunit *test, bool usable)
{
	int ret;

	atomic_set(&riscv_fence_calls, 0);
	ret = kunit_add_action_or_reset(test, riscv_fence_restore,
					(void *)(unsigned long)usable);
	KUNIT_ASSERT_EQ(test, ret, 0);
	kunit_activate_static_stub(test, sbi_remote_sfence_vma_asid,
				   riscv_fence_fails);
}

/* With the default max_ops of 64: a flush by address, and a full one. */
static const unsigned int riscv_fence_pages[] = { 2, 65 };

KUNIT_ARRAY_PARAM(riscv_fence, riscv_fence_pages, pages_desc);

/*
 * A remote fence that fails must not leave other harts' entries behind:
 * the flush falls back to IPIs, and later flushes no longer try the
 * fence. The fence fails only for calls from this test's thread.
 */
static void tlb_policy_arch_riscv_fence_fails(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	unsigned long size = (unsigned long)nr * PAGE_SIZE;
	struct remap r = { .nr = nr };
	bool usable = READ_ONCE(riscv_tlb_fence_usable);
	int stale, calls;

	if (!usable || sbi_rfence_has_failed() ||
	    tlb_policy_method() != TLBI_METHOD_BROADCAST)
		kunit_skip(test, "flushes do not use the SBI remote fence");

	remap_map(test, &r);
	KUNIT_ASSERT_EQ(test, read_on_each_cpu(&r, OLD_BASE), 0);

	riscv_fence_fail_here(test, usable);

	remap_flush(&r, r.va, r.va + size);
	stale = read_on_each_cpu(&r, NEW_BASE);
	calls = atomic_read(&riscv_fence_calls);
	KUNIT_EXPECT_EQ_MSG(test, stale, 0,
			    "%d stale reads of %u pages on %u CPUs after a failed fence",
			    stale, nr, num_online_cpus());
	KUNIT_EXPECT_EQ(test, calls, 1);
	KUNIT_EXPECT_TRUE_MSG(test, sbi_rfence_has_failed(),
			      "the fence is still in use");

	/* The next flush goes by IPI without trying the fence. */
	flush_tlb_kernel_range(r.va, r.va + size);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&riscv_fence_calls), calls,
			    "the next flush tried the failed fence again");

	remap_unmap(test, &r);
}

static int riscv_fence_i_fails(const struct cpumask *cpu_mask)
{
	atomic_inc(&riscv_fence_calls);
	return -EIO;
}

/*
 * A remote fence.i that fails falls back as the TLB flushes do, and turns
 * the fence off for both: flush_icache_all() and flush_icache_mm() stop
 * calling it, and so does the next TLB flush. The fence fails only for
 * calls from this test's thread; no code is changed, so nothing is left
 * stale if a flush is missed.
 */
static void tlb_policy_arch_riscv_fence_i_fails(struct kunit *test)
{
	bool usable = READ_ONCE(riscv_tlb_fence_usable);
	struct mm_struct *mm = test_mm(test);

	if (!riscv_use_sbi_for_rfence() || sbi_rfence_has_failed())
		kunit_skip(test, "remote fence.i does not go through SBI");

	riscv_fence_fail_here(test, usable);
	kunit_activate_static_stub(test, sbi_remote_fence_i,
				   riscv_fence_i_fails);

	flush_icache_all();
	KUNIT_EXPECT_EQ(test, atomic_read(&riscv_fence_calls), 1);
	KUNIT_EXPECT_TRUE_MSG(test, sbi_rfence_has_failed(),
			      "a failed fence.i left the remote fences on");

	/* Neither the I-cache nor the TLB code tries the fence again. */
	flush_icache_all();
	flush_icache_mm(mm, false);
	flush_tlb_kernel_range(VMALLOC_START, VMALLOC_START + PAGE_SIZE);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&riscv_fence_calls), 1,
			    "a flush called the failed fence again");
}

/* The last remote fence, recorded by riscv_fence_record(). */
static struct {
	atomic_t calls;
	unsigned long start, size;
} riscv_fence_seen;

/*
 * Record the fence and do nothing: the callers below change no mapping,
 * so that no hart can be left with a stale entry.
 */
static int riscv_fence_record(const struct cpumask *cpu_mask,
			      unsigned long start, unsigned long size,
			      unsigned long asid)
{
	riscv_fence_seen.start = start;
	riscv_fence_seen.size = size;
	atomic_inc(&riscv_fence_seen.calls);
	return 0;
}

/*
 * One kernel flush of @size bytes from @start, with interrupts off if
 * @atomic, with the fence recorded instead of called for this flush only:
 * any other flush of this thread meanwhile must really flush.
 */
static void riscv_fence_flush(struct kunit *test, unsigned long start,
			      unsigned long size, bool atomic)
{
	unsigned long flags;

	riscv_fence_seen.start = 0;
	riscv_fence_seen.size = 0;
	kunit_activate_static_stub(test, sbi_remote_sfence_vma_asid,
				   riscv_fence_record);
	if (atomic)
		local_irq_save(flags);
	flush_tlb_kernel_range(start, start + size);
	if (atomic)
		local_irq_restore(flags);
	kunit_deactivate_static_stub(test, sbi_remote_sfence_vma_asid);
}

/* flush_tlb_all(), with the fence recorded as riscv_fence_flush() does. */
static void riscv_fence_flush_all(struct kunit *test)
{
	riscv_fence_seen.start = ~0UL;
	riscv_fence_seen.size = 0;
	kunit_activate_static_stub(test, sbi_remote_sfence_vma_asid,
				   riscv_fence_record);
	flush_tlb_all();
	kunit_deactivate_static_stub(test, sbi_remote_sfence_vma_asid);
}

/*
 * What the SBI remote fence is given: the strides decided, up to max_ops;
 * above it the strides touched, by address as before, for the
 * firmware to decide, up to the ceiling; from the ceiling on (a page
 * table's worth) and for everything, the whole space. And with interrupts
 * disabled,
 * where no IPI can be waited for, the fence whenever the firmware has
 * one: under tlbi_method=ipi, and after the fence has failed. No mapping
 * changes, so the recording stub leaves nothing stale.
 */
static void tlb_policy_arch_riscv_fence_args(struct kunit *test)
{
	const struct tlb_policy_arch *arch = tlb_policy_arch_get();
	unsigned long va = VMALLOC_START + 16 * PAGE_SIZE, n;
	bool usable = READ_ONCE(riscv_tlb_fence_usable);
	unsigned int max_ops = tlb_policy_max_ops();
	int calls, ret;

	if (!sbi_rfence_available())
		kunit_skip(test, "the firmware has no remote fence");
	if (sbi_rfence_has_failed())
		kunit_skip(test, "a remote fence has failed");

	atomic_set(&riscv_fence_seen.calls, 0);
	ret = kunit_add_action_or_reset(test, riscv_fence_restore,
					(void *)(unsigned long)usable);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, arch);

	if (tlb_policy_method() == TLBI_METHOD_BROADCAST && usable) {
		/*
		 * Two strides, decided or (above max_ops, as with CIP-1200)
		 * as they are; from an unaligned start, the strides touched.
		 */
		riscv_fence_flush(test, va, 2 * PAGE_SIZE, false);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, va);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.size, 2 * PAGE_SIZE);
		if (max_ops >= 2) {
			riscv_fence_flush(test, va + 8, PAGE_SIZE, false);
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, va);
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.size, 2 * PAGE_SIZE);
		}
		/*
		 * Above max_ops, from an unaligned start: the n + 1 strides
		 * touched, by address below the ceiling, else everything.
		 */
		n = max_ops + 1;
		riscv_fence_flush(test, va + 8, n * PAGE_SIZE, false);
		if (n + 1 <= arch->max_ops_limit) {
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, va);
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.size,
					(n + 1) * PAGE_SIZE);
		} else {
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, 0);
			KUNIT_EXPECT_EQ(test, riscv_fence_seen.size,
					FLUSH_TLB_MAX_SIZE);
		}
		/*
		 * A page table's worth, as pmd_free_pte_page() flushes before
		 * it frees the table: everything, never by address.
		 */
		riscv_fence_flush(test, va, PTRS_PER_PTE * PAGE_SIZE, false);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, 0);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.size, FLUSH_TLB_MAX_SIZE);
		/* Everything. */
		riscv_fence_flush_all(test);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.start, 0);
		KUNIT_EXPECT_EQ(test, riscv_fence_seen.size, FLUSH_TLB_MAX_SIZE);
	}

	/* Interrupts off: the fence, whatever the method, even once failed. */
	calls = atomic_read(&riscv_fence_seen.calls);
	riscv_fence_flush(test, va, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&riscv_fence_seen.calls), calls + 1,
			    "no fence for a flush with interrupts off (method %d)",
			    tlb_policy_method());
	WRITE_ONCE(sbi_rfence_failed, true);
	riscv_fence_flush(test, va, PAGE_SIZE, true);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&riscv_fence_seen.calls), calls + 2,
			    "no fence for a flush with interrupts off once it failed");
	/* With interrupts on, a failed fence is not tried again. */
	riscv_fence_flush(test, va, PAGE_SIZE, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&riscv_fence_seen.calls), calls + 2);
}
#endif /* CONFIG_RISCV */

/* UML on an x86_64 host sets CONFIG_X86_64 too, but not CONFIG_X86. */
#if defined(CONFIG_X86) && defined(CONFIG_X86_64)
/*
 * The generation a flush carries, for each way x86 builds one: the
 * batched unmap and kernel ranges carry none and may never be skipped,
 * whatever this CPU's generation; an mm flush carries the generation
 * inc_mm_tlb_gen() returned and is done once a CPU has reached it. The
 * first half is the regression test of commit 8f1d56f64f8d.
 */
static void tlb_policy_arch_x86_generation(struct kunit *test)
{
	static const u64 local[] = { 0, 1, 2, 3, U64_MAX };
	const struct flush_tlb_info batch = {
		.end = TLB_FLUSH_ALL,
		.new_tlb_gen = TLB_GENERATION_INVALID,
	};
	const struct flush_tlb_info kernel = {
		.start = PAGE_OFFSET,
		.end = PAGE_OFFSET + PAGE_SIZE,
		.stride_shift = PAGE_SHIFT,
		.new_tlb_gen = TLB_GENERATION_INVALID,
	};
	struct mm_struct *mm = test_mm(test);
	struct flush_tlb_info range = {
		.mm = mm,
		.start = USER_ADDR,
		.end = USER_ADDR + PAGE_SIZE,
		.stride_shift = PAGE_SHIFT,
		.new_tlb_gen = inc_mm_tlb_gen(mm),
	};
	unsigned int i;

	KUNIT_EXPECT_FALSE(test, flush_tlb_info_has_gen(&batch));
	KUNIT_EXPECT_FALSE(test, flush_tlb_info_has_gen(&kernel));
	KUNIT_ASSERT_TRUE(test, flush_tlb_info_has_gen(&range));
	for (i = 0; i < ARRAY_SIZE(local); i++) {
		KUNIT_EXPECT_FALSE_MSG(test, flush_tlb_info_done(&batch, local[i]),
				       "batch skipped at local gen %llu", local[i]);
		KUNIT_EXPECT_FALSE_MSG(test, flush_tlb_info_done(&kernel, local[i]),
				       "kernel skipped at local gen %llu", local[i]);
		KUNIT_EXPECT_EQ_MSG(test, flush_tlb_info_done(&range, local[i]),
				    local[i] >= range.new_tlb_gen,
				    "mm flush of gen %llu at local gen %llu",
				    range.new_tlb_gen, local[i]);
	}
}

/* The old test in get_flush_tlb_info(): true for a full flush. */
static bool x86_old_full(unsigned long start, unsigned long end,
			 unsigned int shift, unsigned int ceiling)
{
	return (end - start) >> shift > ceiling;
}

struct x86_case {
	const char *name;
	unsigned long start, end;
	unsigned int shift, max_ops;
	bool range;			/* flushed page by page */
	unsigned long first, last;	/* the bounds a loop uses, for a range */
	bool differs;			/* the old code decided otherwise */
};

#define X86_K	0xffffc90000000000UL	/* a vmalloc address */
#define X86_U	0x7f0000000000UL

static const struct x86_case x86_cases[] = {
	{ "1 page", X86_U, X86_U + SZ_4K, 12, 33, true, X86_U, X86_U + SZ_4K },
	{ "32 pages", X86_U, X86_U + 32 * SZ_4K, 12, 33, true, X86_U,
	  X86_U + 32 * SZ_4K },
	{ "33 pages", X86_U, X86_U + 33 * SZ_4K, 12, 33, true, X86_U,
	  X86_U + 33 * SZ_4K },
	{ "34 pages", X86_U, X86_U + 34 * SZ_4K, 12, 33, false },
	{ "1 page, max_ops 0", X86_U, X86_U + SZ_4K, 12, 0, false },
	{ "empty", X86_U, X86_U, 12, 33, true, X86_U, X86_U },
	{ "all", 0, TLB_FLUSH_ALL, 0, 33, false },
	{ "all, max_ops limit", 0, TLB_FLUSH_ALL, 12, X86_TLB_MAX_OPS_LIMIT,
	  false },
	{ "33 2M pages", X86_U, X86_U + 33 * SZ_2M, 21, 33, true, X86_U,
	  X86_U + 33 * SZ_2M },
	{ "34 2M pages", X86_U, X86_U + 34 * SZ_2M, 21, 33, false },
	/* A page table freed after 33 2M pages: 33, as before. */
	{ "33 2M pages and 4K", X86_U, X86_U + 33 * SZ_2M + SZ_4K, 21, 33,
	  true, X86_U, X86_U + 33 * SZ_2M + SZ_4K },
	/* The start down to the 2M stride: the loop reaches two 2M pages. */
	{ "2M, unaligned", X86_U + SZ_4K, X86_U + SZ_2M + SZ_4K, 21, 33,
	  true, X86_U, X86_U + SZ_2M + SZ_4K },
	{ "1G, unaligned", X86_U + SZ_2M, X86_U + SZ_1G, 30, 33, true,
	  X86_U, X86_U + SZ_1G },
	{ "end below start", X86_U + SZ_4K, X86_U, 12, 33, false },
	{ "kernel, 2 pages", X86_K, X86_K + 2 * SZ_4K, 12, 33, true, X86_K,
	  X86_K + 2 * SZ_4K },
	/*
	 * One page long, but across two: the same decision as before, which
	 * flushed only the first of them.
	 */
	{ "kernel, unaligned 1 page", X86_K + SZ_2K, X86_K + SZ_2K + SZ_4K,
	  12, 33, true, X86_K, X86_K + SZ_2K + SZ_4K },
	{ "kernel, unaligned end", X86_K, X86_K + SZ_4K + 8, 12, 33, true,
	  X86_K, X86_K + SZ_4K + 8 },
	/* 33 pages long, 34 touched: counted 33, as before. */
	{ "kernel, unaligned 33 pages", X86_K + SZ_2K,
	  X86_K + SZ_2K + 33 * SZ_4K, 12, 33, true, X86_K,
	  X86_K + SZ_2K + 33 * SZ_4K },
	/* 33 pages and a half: counted 33, flushed 34, as before. */
	{ "kernel, 33.5 pages", X86_K, X86_K + 33 * SZ_4K + SZ_2K, 12, 33,
	  true, X86_K, X86_K + 33 * SZ_4K + SZ_2K },
	/* The loop would step past the last page and wrap to 0. */
	{ "last page, unaligned end", ~0UL - SZ_8K + 1, ~0UL - 7, 12, 33,
	  false, 0, 0, true },
	{ "empty, in the last page", ~0UL - 7, ~0UL - 7, 12, 33, false, 0, 0,
	  true },
	{ "empty at 0", 0, 0, 12, 33, true, 0, 0 },
};

static void x86_case_desc(const struct x86_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, max_ops %u", c->name,
		 c->max_ops);
}

KUNIT_ARRAY_PARAM(x86_decide, x86_cases, x86_case_desc);

/* The range decision against the old one, and the loop's bounds. */
static void tlb_policy_arch_x86_decisions(struct kunit *test)
{
	const struct x86_case *c = test->param_value;
	unsigned long start = c->start, end = c->end;
	bool range = x86_tlb_flush_range(&start, &end, c->shift, c->max_ops);

	KUNIT_EXPECT_EQ(test, range, c->range);
	if (c->end != TLB_FLUSH_ALL && !c->differs)
		KUNIT_EXPECT_EQ(test, range,
				!x86_old_full(c->start, c->end, c->shift,
					      c->max_ops));
	if (range && c->range) {
		KUNIT_EXPECT_EQ(test, start, c->first);
		KUNIT_EXPECT_EQ(test, end, c->last);
	}
}

/* What x86 offers with and without INVLPGB and a hypervisor's flush. */
static void tlb_policy_arch_x86_describe(struct kunit *test)
{
	const struct tlb_policy_req pv_req = { .method = "pv" };
	const struct tlb_policy_req sbi_req = { .method = "sbi" };
	struct tlb_policy_arch d;
	struct tlb_policy p;
	unsigned int invlpgb, pv;
	char buf[16];

	for (invlpgb = 0; invlpgb < 2; invlpgb++) {
		for (pv = 0; pv < 2; pv++) {
			x86_tlb_policy_describe(&d, invlpgb, pv);
			KUNIT_EXPECT_TRUE(test, d.methods & BIT(TLBI_METHOD_IPI));
			KUNIT_EXPECT_EQ(test, !!(d.methods &
						 BIT(TLBI_METHOD_BROADCAST)),
					invlpgb || pv);
			KUNIT_EXPECT_EQ(test, d.auto_method,
					pv ? TLBI_METHOD_BROADCAST :
					     TLBI_METHOD_IPI);
			KUNIT_EXPECT_EQ(test, d.max_ops, 33);
			KUNIT_EXPECT_EQ(test, d.young, TLBI_YOUNG_NONE);
			KUNIT_EXPECT_FALSE(test, d.young_modes &
					   BIT(TLBI_YOUNG_NOSYNC));
			/* "pv" names broadcast, where it is the hypervisor's. */
			KUNIT_EXPECT_EQ(test,
					tlb_policy_resolve(&d, &pv_req, &p),
					pv ? 0 : TLB_POLICY_BAD_METHOD);
			KUNIT_EXPECT_EQ(test, p.method,
					pv ? TLBI_METHOD_BROADCAST :
					     d.auto_method);
			KUNIT_EXPECT_EQ(test,
					tlb_policy_resolve(&d, &sbi_req, &p),
					TLB_POLICY_BAD_METHOD);
			snprintf(buf, sizeof(buf), "%u", X86_TLB_MAX_OPS_LIMIT);
			KUNIT_EXPECT_EQ(test,
					tlb_policy_set_max_ops(&d, &p, buf), 0);
			snprintf(buf, sizeof(buf), "%u",
				 X86_TLB_MAX_OPS_LIMIT + 1);
			KUNIT_EXPECT_EQ(test,
					tlb_policy_set_max_ops(&d, &p, buf),
					-EINVAL);
		}
	}
}

/* The registered description is the one this machine calls for. */
static void tlb_policy_arch_x86_registered(struct kunit *test)
{
	const struct tlb_policy_arch *got = tlb_policy_arch_get();
	bool invlpgb = cpu_feature_enabled(X86_FEATURE_INVLPGB);
	struct tlb_policy_arch want;
	bool pv = false;

#ifdef CONFIG_PARAVIRT
	pv = pv_ops.mmu.flush_tlb_multi != native_flush_tlb_multi;
#endif
	x86_tlb_policy_describe(&want, invlpgb, pv);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_STREQ(test, got->name, "x86");
	KUNIT_EXPECT_EQ(test, got->methods, want.methods);
	KUNIT_EXPECT_EQ(test, got->auto_method, want.auto_method);
	KUNIT_EXPECT_EQ(test, got->max_ops, want.max_ops);
}

/*
 * set_memory_np() of direct-map pages that every CPU has read: cpa_flush()
 * must invalidate them everywhere, by page up to max_ops and whole above,
 * so that a read on any CPU then faults. The pages are split to 4K first,
 * and are not vmalloc pages, whose alias in the direct map makes cpa
 * flush everything whatever the size.
 */
struct cpa_probe {
	unsigned long va;
	unsigned int nr;
	atomic_t readable;
};

static void cpa_probe_fn(void *arg)
{
	struct cpa_probe *p = arg;
	unsigned long v;
	unsigned int i;

	for (i = 0; i < p->nr; i++)
		if (!copy_from_kernel_nofault(&v, (void *)(p->va + i * PAGE_SIZE),
					      sizeof(v)))
			atomic_inc(&p->readable);
}

static const unsigned int cpa_pages[] = { 1, 32, 33, 34 };

KUNIT_ARRAY_PARAM(cpa, cpa_pages, pages_desc);

static void tlb_policy_arch_x86_cpa(struct kunit *test)
{
	struct cpa_probe p = { .nr = *(const unsigned int *)test->param_value };
	unsigned int order = get_order(p.nr * PAGE_SIZE);
	int before, after, ret;
	struct page *page;

	page = alloc_pages(GFP_KERNEL, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	p.va = (unsigned long)page_address(page);
	memset((void *)p.va, 0x5a, p.nr * PAGE_SIZE);
	ret = set_memory_4k(p.va, p.nr);
	/* Every CPU caches the translations. */
	on_each_cpu(cpa_probe_fn, &p, 1);
	before = atomic_read(&p.readable);
	atomic_set(&p.readable, 0);
	if (!ret)
		ret = set_memory_np(p.va, p.nr);
	on_each_cpu(cpa_probe_fn, &p, 1);
	after = atomic_read(&p.readable);
	/* Present again, whatever happened, before the pages go back. */
	set_memory_p(p.va, p.nr);
	__free_pages(page, order);

	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, before, p.nr * num_online_cpus());
	KUNIT_EXPECT_EQ_MSG(test, after, 0,
			    "%d stale reads of %u non-present pages on %u CPUs",
			    after, p.nr, num_online_cpus());
}

#if defined(CONFIG_DEBUG_TLBFLUSH) && defined(CONFIG_VM_EVENT_COUNTERS)
/*
 * A flush of an mm that another CPU holds is counted once by the policy,
 * as an IPI (or a hypervisor's broadcast), and once by /proc/vmstat's
 * nr_tlb_remote_flush, both on this CPU.
 */
static void tlb_policy_arch_x86_vmstat(struct kunit *test)
{
	struct mm_struct *mm = test_mm(test);
	unsigned long ipi, bc, vm;
	unsigned int other;

	migrate_disable();
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (other < nr_cpu_ids)
		work_on_cpu(other, use_mm_here, mm);
	kthread_use_mm(mm);
	preempt_disable();
	ipi = this_cpu_read(tlb_policy_stats.v[TLB_STAT_IPI]);
	bc = this_cpu_read(tlb_policy_stats.v[TLB_STAT_BROADCAST]);
	vm = this_cpu_read(vm_event_states.event[NR_TLB_REMOTE_FLUSH]);
	flush_tlb_mm(mm);
	ipi = this_cpu_read(tlb_policy_stats.v[TLB_STAT_IPI]) - ipi;
	bc = this_cpu_read(tlb_policy_stats.v[TLB_STAT_BROADCAST]) - bc;
	vm = this_cpu_read(vm_event_states.event[NR_TLB_REMOTE_FLUSH]) - vm;
	preempt_enable();
	kthread_unuse_mm(mm);
	migrate_enable();

	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, ipi + bc, 1);
	/* Hyper-V's and Xen's flushes do not count nr_tlb_remote_flush. */
	if (!bc)
		KUNIT_EXPECT_EQ(test, vm, ipi);
	if (tlb_policy_method() == TLBI_METHOD_IPI)
		KUNIT_EXPECT_EQ(test, ipi, 1);
}
#endif /* CONFIG_DEBUG_TLBFLUSH && CONFIG_VM_EVENT_COUNTERS */

static const enum tlbi_method x86_methods[] = {
	TLBI_METHOD_AUTO, TLBI_METHOD_IPI, TLBI_METHOD_BROADCAST,
};

static void x86_method_desc(const enum tlbi_method *m, char *desc)
{
	static const char *const names[] = {
		[TLBI_METHOD_AUTO] = "auto",
		[TLBI_METHOD_IPI] = "ipi",
		[TLBI_METHOD_BROADCAST] = "broadcast",
	};

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", names[*m]);
}

KUNIT_ARRAY_PARAM(x86_method, x86_methods, x86_method_desc);

/*
 * __text_poke() flushes its temporary mm with interrupts disabled, after
 * unuse_temporary_mm() took this CPU out of the mm's mask: the flush must
 * stay on this CPU, under every method, since the remote path ends in
 * smp_call_function_many_cond(), which must not run with interrupts
 * disabled. The same holds for a batch that names no other CPU. Each
 * method is forced through x86_flush_tlb_under(), since QEMU offers no
 * broadcast; an mm no CPU has used stands for the temporary mm.
 */
static void tlb_policy_arch_x86_irqs_off(struct kunit *test)
{
	enum tlbi_method method = *(const enum tlbi_method *)test->param_value;
	struct arch_tlbflush_unmap_batch batch = {};
	struct mm_struct *mm = test_mm(test);
	unsigned long before[TLB_STAT_NR], flags;
	long d[TLB_STAT_NR];
	int i;

	local_irq_save(flags);
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = this_cpu_read(tlb_policy_stats.v[i]);
	x86_flush_tlb_under(method, mm, &batch);
	for (i = 0; i < TLB_STAT_NR; i++)
		d[i] = this_cpu_read(tlb_policy_stats.v[i]) - before[i];
	local_irq_restore(flags);

	/*
	 * Local by the decision, not by an IPI to an empty mask, which the
	 * core would record as local too: only the local arms say elided.
	 */
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_LOCAL], 2);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_ELIDED], 2);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_IPI], 0);
	KUNIT_EXPECT_EQ(test, d[TLB_STAT_BROADCAST], 0);
}
#endif /* CONFIG_X86 && CONFIG_X86_64 */

/*
 * The tlb_policy:tlb_policy_flush event: the records of known flushes
 * made by the test's own task, caught by a probe on the tracepoint.
 */
#define TRACE_MAX	4

struct trace_catch {
	struct task_struct *task;
	unsigned int nr;
	struct tlb_policy_flush f[TRACE_MAX];
};

static void trace_probe(void *data, const struct tlb_policy_flush *f)
{
	struct trace_catch *c = data;

	if (current != c->task || !in_task() || c->nr >= TRACE_MAX)
		return;
	c->f[c->nr] = *f;
	c->f[c->nr].cpus = NULL;
	c->nr++;
}

static void trace_unregister(void *c)
{
	unregister_trace_tlb_policy_flush(trace_probe, c);
	tracepoint_synchronize_unregister();
}

/*
 * Flush a page, or a range, of @u and return the one record it made, or
 * NULL (a failed expectation) when it made none or several. No
 * assertion: the caller runs with migration disabled and @u in use.
 */
static struct tlb_policy_flush *trace_one(struct kunit *test,
					  struct trace_catch *c,
					  struct user_mm *u, unsigned long start,
					  unsigned long end)
{
	unsigned int nr = c->nr;

	if (end == start + PAGE_SIZE)
		flush_tlb_page(&u->vma, start);
	else
		flush_tlb_range(&u->vma, start, end);
	KUNIT_EXPECT_EQ(test, c->nr, nr + 1);
	return c->nr == nr + 1 ? &c->f[nr] : NULL;
}

/* What a record of one user page or of a huge range must say. */
static void trace_expect(struct kunit *test, const struct tlb_policy_flush *f,
			 struct user_mm *u, unsigned long pages, bool others)
{
	enum tlb_flush_reach reach = user_reach(others);
	bool full = pages > 1 || !tlb_policy_max_ops();

	if (!f)
		return;
	KUNIT_EXPECT_PTR_EQ(test, f->mm, (const struct mm_struct *)u->mm);
	KUNIT_EXPECT_EQ(test, f->start, USER_ADDR);
	KUNIT_EXPECT_EQ(test, f->pages, pages);
	KUNIT_EXPECT_EQ(test, f->stride, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, f->ops, 1UL);
	KUNIT_EXPECT_EQ(test, f->full, full);
	KUNIT_EXPECT_EQ(test, !!(f->why & TLB_WHY_MAX_OPS), full);
	/* x86: see expect_user_counts(); an IPI may stand for a broadcast. */
	if (IS_ENABLED(CONFIG_X86) && reach == TLB_REACH_BROADCAST)
		KUNIT_EXPECT_NE(test, f->reach, TLB_REACH_LOCAL);
	else
		KUNIT_EXPECT_EQ(test, f->reach, reach);
	KUNIT_EXPECT_EQ(test, !!(f->why & TLB_WHY_THIS_CPU),
			reach == TLB_REACH_LOCAL);
	KUNIT_EXPECT_EQ(test, f->why & (TLB_WHY_KERNEL | TLB_WHY_YOUNG |
					TLB_WHY_BATCH | TLB_WHY_CALLER), 0U);
}

/*
 * With the event on, one flush of a page of an mm only used here, one of
 * a range far above any max_ops, one after the mm was used on another
 * CPU, and one of a kernel page: each makes one record that says where
 * it went and why, as the policy decides.
 */
static const bool trace_counting[] = { true, false };

static void trace_counting_desc(const bool *on, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "counting %s", *on ? "on" : "off");
}

KUNIT_ARRAY_PARAM(trace_counting, trace_counting, trace_counting_desc);

static void trace_counting_on(void *unused)
{
	tlb_policy_stats_enable(true);
}

/*
 * The records of known flushes, with the counters on (as the suite runs)
 * and off: the event alone must see every flush decision.
 */
static void tlb_policy_arch_trace(struct kunit *test)
{
	/* Above any max_ops, and above what an arm64 range TLBI covers. */
	const unsigned long huge = (4UL << 20) << PAGE_SHIFT;
	bool counting = *(const bool *)test->param_value;
	struct tlb_policy_flush *f[3];
	struct trace_catch *c;
	struct user_mm u;
	unsigned int other;
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "needs CONFIG_TRACEPOINTS");
	user_mm_init(test, &u);
	if (!counting) {
		tlb_policy_stats_enable(false);
		ret = kunit_add_action_or_reset(test, trace_counting_on, NULL);
		KUNIT_ASSERT_EQ(test, ret, 0);
		if (tlb_policy_counting())
			kunit_skip(test, "counting was switched on from debugfs");
	}
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->task = current;
	KUNIT_ASSERT_EQ(test, register_trace_tlb_policy_flush(trace_probe, c),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, trace_unregister,
							c), 0);
	/* Enabling the tracepoint patched code, which flushed: not ours. */
	c->nr = 0;

	migrate_disable();
	kthread_use_mm(u.mm);
	f[0] = trace_one(test, c, &u, USER_ADDR, USER_ADDR + PAGE_SIZE);
	f[1] = trace_one(test, c, &u, USER_ADDR, USER_ADDR + huge);
	other = cpumask_any_but(cpu_online_mask, smp_processor_id());
	f[2] = NULL;
	if (other < nr_cpu_ids) {
		work_on_cpu(other, use_mm_here, u.mm);
		f[2] = trace_one(test, c, &u, USER_ADDR, USER_ADDR + PAGE_SIZE);
	}
	kthread_unuse_mm(u.mm);
	migrate_enable();
	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);
	trace_expect(test, f[0], &u, 1, false);
	trace_expect(test, f[1], &u, huge >> PAGE_SHIFT, false);
	trace_expect(test, f[2], &u, 1, true);

	flush_tlb_kernel_range(VMALLOC_START, VMALLOC_START + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, c->nr, 4U);
	KUNIT_EXPECT_NULL(test, c->f[3].mm);
	KUNIT_EXPECT_EQ(test, c->f[3].start, VMALLOC_START);
	KUNIT_EXPECT_EQ(test, c->f[3].pages, 1UL);
	KUNIT_EXPECT_NE(test, c->f[3].why & TLB_WHY_KERNEL, 0U);
	KUNIT_EXPECT_EQ(test, c->f[3].why & TLB_WHY_THIS_CPU, 0U);
	KUNIT_EXPECT_NE(test, c->f[3].reach, TLB_REACH_NONE);
}

static int tlb_policy_arch_init(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	return 0;
}

/* Several cases check what the flushes counted: count while they run. */
static int tlb_policy_arch_suite_init(struct kunit_suite *suite)
{
	tlb_policy_stats_enable(true);
	return 0;
}

static void tlb_policy_arch_suite_exit(struct kunit_suite *suite)
{
	tlb_policy_stats_enable(false);
}

static struct kunit_case tlb_policy_arch_cases[] = {
	KUNIT_CASE_PARAM(tlb_policy_arch_kernel_range, kernel_range_gen_params),
	KUNIT_CASE(tlb_policy_arch_kernel_range_unaligned),
#ifdef CONFIG_HOTPLUG_CPU
	KUNIT_CASE_SLOW(tlb_policy_arch_hotplug_kernel_range),
#endif
	KUNIT_CASE(tlb_policy_arch_user_local),
	KUNIT_CASE(tlb_policy_arch_user_moved),
	KUNIT_CASE(tlb_policy_arch_user_several),
	KUNIT_CASE_PARAM(tlb_policy_arch_user_remote, user_remote_gen_params),
#ifdef CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH
	KUNIT_CASE_PARAM(tlb_policy_arch_user_batch, user_remote_gen_params),
	KUNIT_CASE(tlb_policy_arch_user_batch_two),
#endif
	KUNIT_CASE(tlb_policy_arch_young),
	KUNIT_CASE_PARAM(tlb_policy_arch_trace, trace_counting_gen_params),
#ifdef CONFIG_ARM64_CONTPTE
	KUNIT_CASE(tlb_policy_arch_young_contpte),
#endif
#ifdef CONFIG_ARM64
	KUNIT_CASE_SLOW(tlb_policy_arch_arm64_asid_rollover),
	KUNIT_CASE_SLOW(tlb_policy_arch_arm64_asid_rollover_away),
	KUNIT_CASE_PARAM(tlb_policy_arch_arm64_flush_ctx, ctx_gen_params),
	KUNIT_CASE(tlb_policy_arch_arm64_pinned),
#endif
#ifdef CONFIG_RISCV
	KUNIT_CASE(tlb_policy_arch_riscv_fence_args),
	KUNIT_CASE_PARAM(tlb_policy_arch_riscv_fence_fails,
			 riscv_fence_gen_params),
	KUNIT_CASE(tlb_policy_arch_riscv_fence_i_fails),
#endif
#if defined(CONFIG_X86) && defined(CONFIG_X86_64)
	KUNIT_CASE_PARAM(tlb_policy_arch_x86_cpa, cpa_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_arch_x86_irqs_off, x86_method_gen_params),
#if defined(CONFIG_DEBUG_TLBFLUSH) && defined(CONFIG_VM_EVENT_COUNTERS)
	KUNIT_CASE(tlb_policy_arch_x86_vmstat),
#endif
#endif
	{}
};

static struct kunit_suite tlb_policy_arch_suite = {
	.name = "tlb_policy_arch",
	.suite_init = tlb_policy_arch_suite_init,
	.suite_exit = tlb_policy_arch_suite_exit,
	.init = tlb_policy_arch_init,
	.test_cases = tlb_policy_arch_cases,
};

/*
 * The decision tables and descriptions: functions of their arguments
 * and of the registered policy, which need no second CPU. A suite of
 * their own, so that they run whatever the number of CPUs online, and
 * first.
 */
static struct kunit_case tlb_policy_arch_table_cases[] = {
#ifdef CONFIG_ARM64
	KUNIT_CASE(tlb_policy_arch_arm64_default_decisions),
	KUNIT_CASE(tlb_policy_arch_arm64_nr_ops),
	KUNIT_CASE_PARAM(tlb_policy_arch_arm64_max_ops, max_ops_gen_params),
#endif
#ifdef CONFIG_RISCV
	KUNIT_CASE_PARAM(tlb_policy_arch_riscv_decisions,
			 riscv_decide_gen_params),
	KUNIT_CASE(tlb_policy_arch_riscv_describe),
	KUNIT_CASE(tlb_policy_arch_riscv_registered),
#endif
#if defined(CONFIG_X86) && defined(CONFIG_X86_64)
	KUNIT_CASE(tlb_policy_arch_x86_generation),
	KUNIT_CASE_PARAM(tlb_policy_arch_x86_decisions, x86_decide_gen_params),
	KUNIT_CASE(tlb_policy_arch_x86_describe),
	KUNIT_CASE(tlb_policy_arch_x86_registered),
#endif
	{}
};

static struct kunit_suite tlb_policy_arch_table_suite = {
	.name = "tlb_policy_arch_tables",
	.test_cases = tlb_policy_arch_table_cases,
};

kunit_test_suites(&tlb_policy_arch_table_suite, &tlb_policy_arch_suite);

MODULE_DESCRIPTION("KUnit tests of TLB flushes on all CPUs");
MODULE_LICENSE("GPL");
