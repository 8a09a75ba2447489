/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLB flush policy: how remote CPUs are invalidated, when a range flush
 * becomes a full flush, and what clearing an accessed bit costs.
 *
 * The core (mm/tlb_policy.c) owns the policy: it parses the boot
 * parameters, resolves them against what the architecture supports and
 * shows the result in debugfs. The architecture owns the mechanism: it
 * describes itself once with struct tlb_policy_arch and asks the cheap
 * inline helpers below on its flush paths.
 *
 * The method and the accessed-bit mode are set at boot, before the
 * other CPUs are up, and never change after. max_ops may be written through
 * debugfs: a flush that reads it twice may see the old value and then
 * the new one, and every combination is a complete flush.
 *
 * Hot-path rules: the method is a pair of static keys, max_ops and the
 * accessed-bit mode are single loads, and recording a flush (counting
 * it, tracing it) is a pair of patched-out branches until one is turned
 * on. Nothing on a flush path takes a lock or writes a shared cache
 * line; while counting is on, each count is a plain per-CPU increment
 * with interrupts disabled.
 */
#ifndef _LINUX_TLB_POLICY_H
#define _LINUX_TLB_POLICY_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/tracepoint-defs.h>
#include <linux/types.h>

struct cpumask;
struct mm_struct;

/**
 * enum tlbi_method - how remote CPUs are invalidated
 * @TLBI_METHOD_AUTO: the architecture's best choice, which may avoid
 *	remote work altogether when that is provably unneeded.
 * @TLBI_METHOD_IPI: interrupt the remote CPUs; each one flushes locally.
 * @TLBI_METHOD_BROADCAST: hardware or firmware broadcast (arm64 TLBI
 *	inner-shareable, riscv SBI remote fence, x86 INVLPGB or a
 *	hypervisor's flush).
 * @TLBI_METHOD_NR: number of methods.
 */
enum tlbi_method {
	TLBI_METHOD_AUTO,
	TLBI_METHOD_IPI,
	TLBI_METHOD_BROADCAST,
	TLBI_METHOD_NR,
};

/**
 * enum tlbi_young - the flush done when an accessed bit is cleared
 * @TLBI_YOUNG_SYNC: invalidate and wait for completion.
 * @TLBI_YOUNG_NOSYNC: invalidate without waiting for completion.
 * @TLBI_YOUNG_NONE: no invalidation; a stale entry may keep the page
 *	looking unused for longer, which affects reclaim only.
 * @TLBI_YOUNG_NR: number of modes.
 */
enum tlbi_young {
	TLBI_YOUNG_SYNC,
	TLBI_YOUNG_NOSYNC,
	TLBI_YOUNG_NONE,
	TLBI_YOUNG_NR,
};

/**
 * enum tlb_policy_stat - flush counters
 * @TLB_STAT_LOCAL: flushes done without reaching another CPU.
 * @TLB_STAT_IPI: remote flushes done by IPI.
 * @TLB_STAT_BROADCAST: remote flushes done by hardware or firmware
 *	broadcast.
 * @TLB_STAT_FULL: range flushes turned into a full flush by max_ops.
 * @TLB_STAT_ELIDED: remote flushes avoided because no other CPU can hold
 *	entries of the mm (the architecture's record says so).
 * @TLB_STAT_YOUNG_SKIPPED: accessed-bit flushes skipped by
 *	%TLBI_YOUNG_NONE, or kept off the other CPUs where the architecture
 *	documents that it does so.
 * @TLB_STAT_YOUNG_WAITED: accessed-bit flushes waited for, as
 *	%TLBI_YOUNG_SYNC asks.
 * @TLB_STAT_NR: number of counters.
 */
enum tlb_policy_stat {
	TLB_STAT_LOCAL,
	TLB_STAT_IPI,
	TLB_STAT_BROADCAST,
	TLB_STAT_FULL,
	TLB_STAT_ELIDED,
	TLB_STAT_YOUNG_SKIPPED,
	TLB_STAT_YOUNG_WAITED,
	TLB_STAT_NR,
};

/**
 * enum tlb_flush_kind - what a range flush should do
 * @TLB_FLUSH_NONE: nothing; the range is empty.
 * @TLB_FLUSH_RANGE: invalidate the range, one operation at a time.
 * @TLB_FLUSH_FULL: invalidate the whole address space instead.
 */
enum tlb_flush_kind {
	TLB_FLUSH_NONE,
	TLB_FLUSH_RANGE,
	TLB_FLUSH_FULL,
};

/**
 * enum tlb_flush_reach - which CPUs a flush must reach, and how
 * @TLB_REACH_LOCAL: only the flushing CPU.
 * @TLB_REACH_IPI: the flushing CPU, and the others by IPI.
 * @TLB_REACH_BROADCAST: all CPUs, by hardware or firmware broadcast.
 * @TLB_REACH_NONE: no CPU: the flush was skipped, as tlbi_young= allows
 *	for an accessed bit. Only records of flushes (struct
 *	tlb_policy_flush) use it; tlb_policy_reach() never returns it.
 */
enum tlb_flush_reach {
	TLB_REACH_LOCAL,
	TLB_REACH_IPI,
	TLB_REACH_BROADCAST,
	TLB_REACH_NONE,
};

/**
 * enum tlb_flush_why - why a flush went the way it did
 * @TLB_WHY_THIS_CPU: no other CPU can hold entries of the mm, so the
 *	flush stayed on this CPU (counted as elided).
 * @TLB_WHY_MAX_OPS: the range needed more operations than max_ops, so
 *	the whole address space was flushed (counted as full).
 * @TLB_WHY_ERRATUM: @TLB_WHY_MAX_OPS with max_ops forced by an erratum.
 * @TLB_WHY_ATOMIC: interrupts disabled or not in task context, where an
 *	IPI cannot be waited for: broadcast instead.
 * @TLB_WHY_PINNED: the ASID is pinned for a device, which only sees
 *	broadcast invalidations (arm64).
 * @TLB_WHY_GLOBAL_ASID: the mm has a global ASID, which INVLPGB flushes
 *	everywhere (x86).
 * @TLB_WHY_KERNEL: a kernel address range, or the whole TLB: every CPU
 *	may hold it.
 * @TLB_WHY_BATCH: the end of a batched unmap.
 * @TLB_WHY_YOUNG: an accessed bit was cleared.
 * @TLB_WHY_NOSYNC: the invalidation is not waited for.
 * @TLB_WHY_CALLER: the caller asked for this CPU only.
 * @TLB_WHY_FENCE_FAILED: the remote fence is missing or has failed, so
 *	the flush went by IPI (riscv).
 *
 * A flush with none of these bits went the way the method in force says.
 */
enum tlb_flush_why {
	TLB_WHY_THIS_CPU	= BIT(0),
	TLB_WHY_MAX_OPS		= BIT(1),
	TLB_WHY_ERRATUM		= BIT(2),
	TLB_WHY_ATOMIC		= BIT(3),
	TLB_WHY_PINNED		= BIT(4),
	TLB_WHY_GLOBAL_ASID	= BIT(5),
	TLB_WHY_KERNEL		= BIT(6),
	TLB_WHY_BATCH		= BIT(7),
	TLB_WHY_YOUNG		= BIT(8),
	TLB_WHY_NOSYNC		= BIT(9),
	TLB_WHY_CALLER		= BIT(10),
	TLB_WHY_FENCE_FAILED	= BIT(11),
};

/**
 * struct tlb_policy_flush - one flush decision, as it is recorded
 * @mm: the address space, or NULL for the kernel's.
 * @start: the first address asked for.
 * @pages: the pages asked for, %TLB_POLICY_PAGES_ALL for everything.
 * @stride: the size each operation of the range covers.
 * @ops: the invalidations issued on each CPU reached: 1 for a whole
 *	address space or TLB, 0 when none.
 * @cpus: the mask an IPI flush is sent to, or NULL: a local flush
 *	reaches 1 CPU, a broadcast every CPU. The mask may include this
 *	CPU, which flushes without an interrupt, and on x86 CPUs in lazy
 *	TLB mode that the IPI skips.
 * @reach: the enum tlb_flush_reach taken.
 * @full: the whole address space (or TLB) was invalidated.
 * @why: enum tlb_flush_why bits.
 */
struct tlb_policy_flush {
	const struct mm_struct *mm;
	unsigned long start;
	unsigned long pages;
	unsigned long stride;
	unsigned long ops;
	const struct cpumask *cpus;
	enum tlb_flush_reach reach;
	bool full;
	unsigned int why;
};

/* @pages of a flush of everything. */
#define TLB_POLICY_PAGES_ALL		(~0UL)

/*
 * Upper bound of max_ops: a larger boot parameter is clamped with a
 * warning, a larger debugfs write is refused.
 */
#define TLB_POLICY_MAX_OPS_LIMIT	1048576U	/* 2^20 */

/**
 * struct tlb_policy_arch - what an architecture supports, described once
 * @name: architecture name, for messages.
 * @methods: mask of BIT(enum tlbi_method) values it implements;
 *	%TLBI_METHOD_AUTO is always allowed.
 * @auto_method: what %TLBI_METHOD_AUTO resolves to; must be in @methods.
 * @broadcast_alias: another accepted spelling of "broadcast", or NULL.
 * @max_ops: default maximum number of operations of one range flush.
 * @max_ops_limit: the largest max_ops the architecture accepts, or 0 for
 *	%TLB_POLICY_MAX_OPS_LIMIT. A range flush issues up to max_ops
 *	operations in one loop, typically with preemption disabled, so this
 *	bounds that loop. A larger boot parameter is clamped with a
 *	warning, a larger debugfs write is refused.
 * @young_modes: mask of BIT(enum tlbi_young) values it implements.
 * @young: default accessed-bit mode; must be in @young_modes.
 * @erratum: name of an erratum that forces @erratum_max_ops, or NULL.
 *	It wins over the user's tlbi_max_ops= and over debugfs.
 * @erratum_max_ops: max_ops forced while @erratum is set.
 */
struct tlb_policy_arch {
	const char *name;
	unsigned int methods;
	enum tlbi_method auto_method;
	const char *broadcast_alias;
	unsigned int max_ops;
	unsigned int max_ops_limit;
	unsigned int young_modes;
	enum tlbi_young young;
	const char *erratum;
	unsigned int erratum_max_ops;
};

/**
 * struct tlb_policy - a resolved policy
 * @method: %TLBI_METHOD_IPI or %TLBI_METHOD_BROADCAST; never AUTO.
 * @is_auto: @method was chosen by %TLBI_METHOD_AUTO, so the architecture
 *	may also skip remote work that is provably unneeded.
 * @max_ops: operations a range flush may issue before it flushes all.
 * @young: accessed-bit mode.
 */
struct tlb_policy {
	enum tlbi_method method;
	bool is_auto;
	unsigned int max_ops;
	enum tlbi_young young;
};

/**
 * struct tlb_policy_req - the user's request, as typed
 * @method: value of tlbi_method=, or NULL when not given.
 * @max_ops: value of tlbi_max_ops=, or NULL when not given.
 * @young: value of tlbi_young=, or NULL when not given.
 */
struct tlb_policy_req {
	const char *method;
	const char *max_ops;
	const char *young;
};

/* Flags returned by tlb_policy_resolve(): one per warning it implies. */
#define TLB_POLICY_BAD_METHOD		BIT(0)	/* unknown tlbi_method= */
#define TLB_POLICY_UNSUP_METHOD		BIT(1)	/* not implemented here */
#define TLB_POLICY_BAD_MAX_OPS		BIT(2)	/* not a number */
#define TLB_POLICY_CLAMPED_MAX_OPS	BIT(3)	/* above the arch's limit */
#define TLB_POLICY_ERRATUM_MAX_OPS	BIT(4)	/* user value overridden */
#define TLB_POLICY_BAD_YOUNG		BIT(5)	/* unknown tlbi_young= */
#define TLB_POLICY_UNSUP_YOUNG		BIT(6)	/* not implemented here */

/**
 * struct tlb_policy_stats - per-CPU flush counters
 * @v: one counter per enum tlb_policy_stat.
 */
struct tlb_policy_stats {
	unsigned long v[TLB_STAT_NR];
};

#ifdef CONFIG_TLB_POLICY

/* The policy set at boot, and max_ops in force; read through the helpers. */
extern struct tlb_policy tlb_policy_live;
extern unsigned int tlb_policy_live_max_ops;
DECLARE_STATIC_KEY_FALSE(tlb_policy_ipi_key);
DECLARE_STATIC_KEY_TRUE(tlb_policy_auto_key);
DECLARE_STATIC_KEY_FALSE(tlb_policy_stats_key);
DECLARE_PER_CPU(struct tlb_policy_stats, tlb_policy_stats);

/**
 * tlb_policy_method() - the resolved remote invalidation method
 *
 * Return: %TLBI_METHOD_IPI or %TLBI_METHOD_BROADCAST.
 */
static __always_inline enum tlbi_method tlb_policy_method(void)
{
	if (static_branch_unlikely(&tlb_policy_ipi_key))
		return TLBI_METHOD_IPI;
	return TLBI_METHOD_BROADCAST;
}

/**
 * tlb_policy_is_auto() - whether the method was left to the architecture
 *
 * Return: true when the architecture may skip remote work that it can
 * prove unneeded; false when the user asked for one method explicitly.
 */
static __always_inline bool tlb_policy_is_auto(void)
{
	return static_branch_likely(&tlb_policy_auto_key);
}

/**
 * tlb_policy_max_ops() - the current range flush threshold
 *
 * Return: how many invalidate operations one range flush may issue
 * before it flushes the whole address space instead.
 */
static __always_inline unsigned int tlb_policy_max_ops(void)
{
	return READ_ONCE(tlb_policy_live_max_ops);
}

/**
 * tlb_policy_young() - the accessed-bit flush mode, set at boot
 *
 * Return: the enum tlbi_young mode in force.
 */
static __always_inline enum tlbi_young tlb_policy_young(void)
{
	return tlb_policy_live.young;
}

/**
 * tlb_policy_counting() - whether flushes are being counted
 *
 * Return: true while tlb_policy_stats_enable() has been asked to count,
 * false otherwise. While counting is off this is a patched-out branch.
 */
static __always_inline bool tlb_policy_counting(void)
{
	return static_branch_unlikely(&tlb_policy_stats_key);
}

DECLARE_TRACEPOINT(tlb_policy_flush);

/**
 * tlb_policy_observed() - whether flush decisions are being recorded
 *
 * Return: true while flushes are counted or the tlb_policy:tlb_policy_flush
 * event is enabled. Otherwise two patched-out branches.
 */
static __always_inline bool tlb_policy_observed(void)
{
	return tlb_policy_counting() || tracepoint_enabled(tlb_policy_flush);
}

void tlb_policy_note(const struct tlb_policy_flush *f);

/**
 * tlb_policy_record() - record one flush decision
 * @...: designated initializers of struct tlb_policy_flush.
 *
 * Counts the decision and emits the tlb_policy:tlb_policy_flush event,
 * through tlb_policy_note(), so the counters are a view of the events.
 * The arguments are evaluated only while tlb_policy_observed(): a
 * flush path pays two patched-out branches and writes nothing otherwise.
 */
#define tlb_policy_record(...)						\
do {									\
	if (tlb_policy_observed()) {					\
		const struct tlb_policy_flush __tlbp_f = { __VA_ARGS__ };\
									\
		tlb_policy_note(&__tlbp_f);				\
	}								\
} while (0)

#endif /* CONFIG_TLB_POLICY */

/**
 * tlb_policy_decide() - flush a range, or flush everything
 * @nr_ops: operations the range needs (pages, or range operations where
 *	the architecture counts those), ULONG_MAX for "everything".
 * @max_ops: the threshold, normally tlb_policy_max_ops().
 *
 * Return: %TLB_FLUSH_NONE for an empty range, %TLB_FLUSH_FULL when
 * @nr_ops is above @max_ops, else %TLB_FLUSH_RANGE.
 */
static inline enum tlb_flush_kind tlb_policy_decide(unsigned long nr_ops,
						    unsigned int max_ops)
{
	if (!nr_ops)
		return TLB_FLUSH_NONE;
	return nr_ops > max_ops ? TLB_FLUSH_FULL : TLB_FLUSH_RANGE;
}

/**
 * struct tlb_flush_facts - what the architecture knows about one flush
 * @others: another CPU may hold entries of the address space. Leave it
 *	set unless the architecture has proved that none can.
 * @atomic: an IPI cannot be waited for here (interrupts disabled, or not
 *	in task context).
 * @no_broadcast: this flush has no broadcast form here (an x86 user
 *	flush without a hypervisor's flush, or one that no other CPU needs).
 * @shared: %TLB_WHY_PINNED or %TLB_WHY_GLOBAL_ASID when something that
 *	no IPI reaches may hold the entries (a device sharing a pinned ASID;
 *	CPUs that ran a global ASID and left no trace in mm_cpumask()),
 *	else 0. It wins over the other facts.
 *
 * The facts are the architecture's; where the flush goes is the core's
 * (tlb_policy_reach()). What only the architecture knows after the
 * decision stays there: riscv's remote fence that has failed, and its
 * fence standing in for an IPI from atomic context under every method.
 */
struct tlb_flush_facts {
	bool others;
	bool atomic;
	bool no_broadcast;
	unsigned int shared;
};

/**
 * __tlb_policy_reach() - which CPUs a flush must reach, under a method
 * @method: the resolved method, %TLBI_METHOD_IPI or %TLBI_METHOD_BROADCAST.
 * @is_auto: the method was chosen automatically.
 * @f: the architecture's facts about the flush.
 * @why: enum tlb_flush_why bits; the reason for the reach is added.
 *
 * Only a broadcast reaches what @f.shared names. The flush stays on this
 * CPU when no other CPU can hold entries, unless the user asked for
 * broadcasts explicitly: those never elide, so that the automatic choice
 * can be compared with them. The IPI method, and a flush that has no
 * broadcast form, reach the other CPUs by IPI, except where an IPI cannot
 * be waited for and a broadcast exists.
 *
 * Return: the enum tlb_flush_reach to use (never %TLB_REACH_NONE).
 */
static __always_inline enum tlb_flush_reach
__tlb_policy_reach(enum tlbi_method method, bool is_auto,
		   struct tlb_flush_facts f, unsigned int *why)
{
	if (f.shared) {
		*why |= f.shared;
		return TLB_REACH_BROADCAST;
	}
	if (!f.others &&
	    (is_auto || method == TLBI_METHOD_IPI || f.no_broadcast)) {
		*why |= TLB_WHY_THIS_CPU;
		return TLB_REACH_LOCAL;
	}
	if (f.no_broadcast)
		return TLB_REACH_IPI;
	if (method != TLBI_METHOD_IPI)
		return TLB_REACH_BROADCAST;
	if (!f.atomic)
		return TLB_REACH_IPI;
	*why |= TLB_WHY_ATOMIC;
	return TLB_REACH_BROADCAST;
}

#ifdef CONFIG_TLB_POLICY
/**
 * tlb_policy_reach() - which CPUs a flush must reach
 * @f: the architecture's facts about the flush.
 * @why: enum tlb_flush_why bits; the reason for the reach is added.
 *
 * The one decision of where a flush of an mm goes, on every architecture
 * (and riscv's kernel flushes), under the method set at boot: see
 * __tlb_policy_reach().
 *
 * Return: the enum tlb_flush_reach to use.
 */
static __always_inline enum tlb_flush_reach
tlb_policy_reach(struct tlb_flush_facts f, unsigned int *why)
{
	return __tlb_policy_reach(tlb_policy_method(), tlb_policy_is_auto(),
				  f, why);
}
#endif

int tlb_policy_parse_method(const char *s, const char *alias,
			    enum tlbi_method *out);
int tlb_policy_parse_max_ops(const char *s, unsigned int *out,
			     bool *clamped);
int tlb_policy_parse_young(const char *s, enum tlbi_young *out);
unsigned int tlb_policy_resolve(const struct tlb_policy_arch *arch,
				const struct tlb_policy_req *req,
				struct tlb_policy *out);
unsigned int tlb_policy_max_ops_limit(const struct tlb_policy_arch *arch);
int tlb_policy_set_max_ops(const struct tlb_policy_arch *arch,
			   struct tlb_policy *p, const char *buf);
int tlb_policy_format_method(const struct tlb_policy_arch *arch,
			     const struct tlb_policy *p, char *buf,
			     size_t size);
int tlb_policy_format_young(const struct tlb_policy_arch *arch,
			    const struct tlb_policy *p, char *buf, size_t size);
unsigned long tlb_policy_stats_sum(struct tlb_policy_stats __percpu *stats,
				   enum tlb_policy_stat stat);
void tlb_policy_stats_enable(bool on);
unsigned long tlb_policy_stats_read(struct tlb_policy_stats __percpu *stats,
				    const unsigned long *base,
				    enum tlb_policy_stat stat);
int tlb_policy_stats_write(struct tlb_policy_stats __percpu *stats,
			   unsigned long *base, const char *buf);
void tlb_policy_init(const struct tlb_policy_arch *arch);
const struct tlb_policy_arch *tlb_policy_arch_get(void);

/* Test-only hooks of the architectures, for mm/tests/ alone. */
#if defined(CONFIG_ARM64) && IS_ENABLED(CONFIG_TLB_POLICY_ARCH_KUNIT_TEST)
void arm64_asid_rollover_for_test(void);
#endif
#if defined(CONFIG_RISCV) && IS_ENABLED(CONFIG_KUNIT)
extern bool riscv_tlb_fence_usable;
extern bool sbi_rfence_failed;
void riscv_tlb_policy_describe(struct tlb_policy_arch *desc, bool rfence,
			       bool sbi_ipi, bool cip_1200);
#endif
#if defined(CONFIG_X86) && IS_ENABLED(CONFIG_KUNIT)
void x86_tlb_policy_describe(struct tlb_policy_arch *desc, bool invlpgb,
			     bool pv);
struct arch_tlbflush_unmap_batch;
void x86_flush_tlb_under(enum tlbi_method method, struct mm_struct *mm,
			 struct arch_tlbflush_unmap_batch *batch);
#endif

#endif /* _LINUX_TLB_POLICY_H */
