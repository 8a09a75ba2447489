// SPDX-License-Identifier: GPL-2.0
/*
 * TLB flush policy core.
 *
 * The policy has three parts: the method used to reach remote CPUs,
 * the number of invalidate operations above which a range flush
 * becomes a full flush (max_ops), and the flush done when an accessed
 * bit is cleared (young). An architecture describes what it implements
 * with struct tlb_policy_arch and calls tlb_policy_init() once during
 * boot. This file resolves the boot parameters
 * against that description, publishes the result for the inline
 * helpers in <linux/tlb_policy.h>, and shows it in debugfs.
 *
 * The method and the accessed-bit mode are set once, at boot, on the
 * boot CPU before any other CPU is up: no flush on another CPU ever sees
 * them change. A flush that interrupts tlb_policy_init() on the boot CPU
 * may see one key set and not the other; with one CPU online, each
 * combination is a complete flush.
 * max_ops alone may be changed later through debugfs, as x86's
 * tlb_single_page_flush_ceiling could be.
 *
 * None of the choices here decides whether a flush is needed; they only
 * decide how a needed flush is carried out. Every resolution and
 * fallback lands on a complete flush method. Before tlb_policy_init()
 * the policy is the most conservative one: every range flush is a full
 * flush.
 */

#define pr_fmt(fmt) "tlb_policy: " fmt

#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tlb_policy.h>
#include <linux/uaccess.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tlb_policy.h>

/* Set by tlb_policy_init(); max_ops is its boot value. */
struct tlb_policy tlb_policy_live __ro_after_init = {
	.method = TLBI_METHOD_BROADCAST,
	.is_auto = true,
	.max_ops = 0,
	.young = TLBI_YOUNG_SYNC,
};

/* max_ops in force: 0 until tlb_policy_init(), then debugfs may write it. */
unsigned int tlb_policy_live_max_ops __read_mostly;

/* Set once by tlb_policy_init(); read-only after init: a change WARNs. */
DEFINE_STATIC_KEY_FALSE_RO(tlb_policy_ipi_key);
DEFINE_STATIC_KEY_TRUE_RO(tlb_policy_auto_key);
/* Counting is off until someone asks: see tlb_policy_stats_enable(). */
DEFINE_STATIC_KEY_FALSE(tlb_policy_stats_key);
DEFINE_PER_CPU(struct tlb_policy_stats, tlb_policy_stats);

static const struct tlb_policy_arch *tlb_policy_arch_desc __ro_after_init;
/* Serialises the debugfs writers; flush paths never take it. */
static DEFINE_MUTEX(tlb_policy_mutex);

static const char *const tlbi_method_names[TLBI_METHOD_NR] = {
	[TLBI_METHOD_AUTO] = "auto",
	[TLBI_METHOD_IPI] = "ipi",
	[TLBI_METHOD_BROADCAST] = "broadcast",
};

static const char *const tlbi_young_names[TLBI_YOUNG_NR] = {
	[TLBI_YOUNG_SYNC] = "sync",
	[TLBI_YOUNG_NOSYNC] = "nosync",
	[TLBI_YOUNG_NONE] = "none",
};

static const char *const tlb_policy_stat_names[TLB_STAT_NR] = {
	[TLB_STAT_LOCAL] = "local",
	[TLB_STAT_IPI] = "ipi",
	[TLB_STAT_BROADCAST] = "broadcast",
	[TLB_STAT_FULL] = "full",
	[TLB_STAT_ELIDED] = "elided",
	[TLB_STAT_YOUNG_SKIPPED] = "young_skipped",
	[TLB_STAT_YOUNG_WAITED] = "young_waited",
};

/* Exact, case-sensitive match; one trailing newline is allowed. */
static int tlb_policy_match(const char *s, const char *const *names, int nr)
{
	int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (sysfs_streq(s, names[i]))
			return i;
	return -EINVAL;
}

/**
 * tlb_policy_parse_method() - parse a tlbi_method= value
 * @s: the value, for example "ipi"; one trailing newline is allowed.
 * @alias: another accepted spelling of "broadcast", or NULL.
 * @out: where the method is stored on success.
 *
 * Return: 0 on success, -EINVAL if @s names no method.
 */
int tlb_policy_parse_method(const char *s, const char *alias,
			    enum tlbi_method *out)
{
	int i;

	if (s && alias && sysfs_streq(s, alias)) {
		*out = TLBI_METHOD_BROADCAST;
		return 0;
	}
	i = tlb_policy_match(s, tlbi_method_names, TLBI_METHOD_NR);
	if (i < 0)
		return i;
	*out = i;
	return 0;
}

/*
 * Whether @s is only digits of the base kstrtoull() would take (after an
 * optional '+'), with at most one trailing newline: a number too large
 * for 64 bits, which kstrtoull() refuses with -ERANGE before it looks at
 * what follows the digits.
 */
static bool tlb_policy_all_digits(const char *s)
{
	unsigned int base = 10;
	const char *p;

	if (*s == '+')
		s++;
	if (s[0] == '0' && _tolower(s[1]) == 'x' && isxdigit(s[2])) {
		base = 16;
		s += 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	for (p = s; *p && *p != '\n'; p++)
		if (base == 16 ? !isxdigit(*p) :
		    *p < '0' || *p > (base == 8 ? '7' : '9'))
			return false;
	return p > s && (!*p || !p[1]);
}

/**
 * tlb_policy_parse_max_ops() - parse a tlbi_max_ops= value
 * @s: a number, decimal, hexadecimal with 0x or octal with 0, as x86's
 *	tlb_single_page_flush_ceiling took it; one trailing newline is
 *	allowed.
 * @out: where the value is stored on success.
 * @clamped: set when the value was above %TLB_POLICY_MAX_OPS_LIMIT and
 *	@out holds the limit instead; cleared otherwise.
 *
 * Return: 0 on success, -EINVAL for anything that is not such a number
 * (empty, negative, trailing junk).
 */
int tlb_policy_parse_max_ops(const char *s, unsigned int *out, bool *clamped)
{
	unsigned long long v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = kstrtoull(s, 0, &v);
	if (ret == -ERANGE && tlb_policy_all_digits(s))
		v = ULLONG_MAX;
	else if (ret)
		return -EINVAL;
	*clamped = v > TLB_POLICY_MAX_OPS_LIMIT;
	*out = *clamped ? TLB_POLICY_MAX_OPS_LIMIT : v;
	return 0;
}

/**
 * tlb_policy_parse_young() - parse a tlbi_young= value
 * @s: "sync", "nosync" or "none"; one trailing newline is allowed.
 * @out: where the mode is stored on success.
 *
 * Return: 0 on success, -EINVAL if @s names no mode.
 */
int tlb_policy_parse_young(const char *s, enum tlbi_young *out)
{
	int i = tlb_policy_match(s, tlbi_young_names, TLBI_YOUNG_NR);

	if (i < 0)
		return i;
	*out = i;
	return 0;
}

/**
 * tlb_policy_max_ops_limit() - the largest max_ops an architecture accepts
 * @arch: the architecture description.
 *
 * Return: @arch->max_ops_limit when it is set and below
 * %TLB_POLICY_MAX_OPS_LIMIT, else %TLB_POLICY_MAX_OPS_LIMIT.
 */
unsigned int tlb_policy_max_ops_limit(const struct tlb_policy_arch *arch)
{
	if (arch->max_ops_limit && arch->max_ops_limit < TLB_POLICY_MAX_OPS_LIMIT)
		return arch->max_ops_limit;
	return TLB_POLICY_MAX_OPS_LIMIT;
}

/**
 * tlb_policy_resolve() - turn a request into a policy for one arch
 * @arch: what the architecture implements.
 * @req: the boot parameters as typed; NULL members were not given.
 * @out: the resolved policy.
 *
 * Every part of the request that cannot be honoured falls back to the
 * architecture's default, and an erratum override wins over the user.
 * This function does not print; the returned flags say which warnings
 * the caller owes the user.
 *
 * Return: a mask of TLB_POLICY_* flags, 0 when the request was honoured.
 */
unsigned int tlb_policy_resolve(const struct tlb_policy_arch *arch,
				const struct tlb_policy_req *req,
				struct tlb_policy *out)
{
	enum tlbi_method method = TLBI_METHOD_AUTO;
	enum tlbi_young young = arch->young;
	unsigned int flags = 0, ops;
	bool clamped;

	if (req->method) {
		if (tlb_policy_parse_method(req->method, arch->broadcast_alias,
					    &method)) {
			flags |= TLB_POLICY_BAD_METHOD;
			method = TLBI_METHOD_AUTO;
		} else if (method != TLBI_METHOD_AUTO &&
			   !(arch->methods & BIT(method))) {
			flags |= TLB_POLICY_UNSUP_METHOD;
			method = TLBI_METHOD_AUTO;
		}
	}
	out->is_auto = method == TLBI_METHOD_AUTO;
	out->method = out->is_auto ? arch->auto_method : method;

	out->max_ops = arch->max_ops;
	if (req->max_ops) {
		if (tlb_policy_parse_max_ops(req->max_ops, &ops, &clamped)) {
			flags |= TLB_POLICY_BAD_MAX_OPS;
		} else {
			out->max_ops = min(ops, tlb_policy_max_ops_limit(arch));
			if (clamped || out->max_ops != ops)
				flags |= TLB_POLICY_CLAMPED_MAX_OPS;
		}
	}
	if (arch->erratum) {
		/*
		 * Whatever was asked, the erratum's value is in force: one
		 * warning that says so, not one that names another value.
		 */
		if (req->max_ops &&
		    (flags & (TLB_POLICY_BAD_MAX_OPS |
			      TLB_POLICY_CLAMPED_MAX_OPS) ||
		     out->max_ops != arch->erratum_max_ops)) {
			flags &= ~(TLB_POLICY_BAD_MAX_OPS |
				   TLB_POLICY_CLAMPED_MAX_OPS);
			flags |= TLB_POLICY_ERRATUM_MAX_OPS;
		}
		out->max_ops = arch->erratum_max_ops;
	}

	if (req->young) {
		if (tlb_policy_parse_young(req->young, &young)) {
			flags |= TLB_POLICY_BAD_YOUNG;
			young = arch->young;
		} else if (!(arch->young_modes & BIT(young))) {
			flags |= TLB_POLICY_UNSUP_YOUNG;
			young = arch->young;
		}
	}
	out->young = young;
	return flags;
}

/**
 * tlb_policy_set_max_ops() - validate and apply max_ops written at runtime
 * @arch: the architecture description.
 * @p: the policy to change; untouched on error.
 * @buf: the text written, a number as tlb_policy_parse_max_ops() takes it.
 *
 * Unlike the boot parameter, a value written later is never clamped: a
 * value above tlb_policy_max_ops_limit() is refused. While an erratum forces
 * max_ops, only the forced value is accepted.
 *
 * Return: 0, or -EINVAL.
 */
int tlb_policy_set_max_ops(const struct tlb_policy_arch *arch,
			   struct tlb_policy *p, const char *buf)
{
	unsigned int ops;
	bool clamped;

	if (tlb_policy_parse_max_ops(buf, &ops, &clamped) || clamped ||
	    ops > tlb_policy_max_ops_limit(arch))
		return -EINVAL;
	if (arch->erratum && ops != arch->erratum_max_ops)
		return -EINVAL;
	p->max_ops = ops;
	return 0;
}

/**
 * tlb_policy_format_method() - describe the method setting
 * @arch: the architecture description.
 * @p: the policy.
 * @buf: output buffer.
 * @size: size of @buf.
 *
 * Lists "auto" and each supported method; the setting in force is in
 * brackets. When it is auto, the method auto chose follows a colon, as
 * in "[auto:broadcast] ipi broadcast".
 *
 * Return: the number of characters written, without the NUL.
 */
int tlb_policy_format_method(const struct tlb_policy_arch *arch,
			     const struct tlb_policy *p, char *buf,
			     size_t size)
{
	int m, n;

	if (p->is_auto)
		n = scnprintf(buf, size, "[auto:%s]",
			      tlbi_method_names[p->method]);
	else
		n = scnprintf(buf, size, "auto");
	for (m = TLBI_METHOD_AUTO + 1; m < TLBI_METHOD_NR; m++) {
		if (!(arch->methods & BIT(m)))
			continue;
		if (!p->is_auto && p->method == m)
			n += scnprintf(buf + n, size - n, " [%s]",
				       tlbi_method_names[m]);
		else
			n += scnprintf(buf + n, size - n, " %s",
				       tlbi_method_names[m]);
	}
	return n;
}

/**
 * tlb_policy_format_young() - describe the accessed-bit mode setting
 * @arch: the architecture description.
 * @p: the policy.
 * @buf: output buffer.
 * @size: size of @buf.
 *
 * Lists each supported mode, the one in force in brackets, as in
 * "sync [nosync] none".
 *
 * Return: the number of characters written, without the NUL.
 */
int tlb_policy_format_young(const struct tlb_policy_arch *arch,
			    const struct tlb_policy *p, char *buf, size_t size)
{
	int y, n = 0;

	for (y = 0; y < TLBI_YOUNG_NR; y++) {
		if (!(arch->young_modes & BIT(y)))
			continue;
		n += scnprintf(buf + n, size - n, y == p->young ? "%s[%s]" :
			       "%s%s", n ? " " : "", tlbi_young_names[y]);
	}
	return n;
}

/**
 * tlb_policy_stats_sum() - sum one counter over all CPUs
 * @stats: the per-CPU counters.
 * @stat: which counter.
 *
 * The sum is not a snapshot: CPUs may count while it is taken.
 *
 * Return: the sum.
 */
unsigned long tlb_policy_stats_sum(struct tlb_policy_stats __percpu *stats,
				   enum tlb_policy_stat stat)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(stats, cpu)->v[stat]);
	return sum;
}

/**
 * tlb_policy_stats_read() - one counter as the stats file shows it
 * @stats: the per-CPU counters.
 * @base: the sums at the last reset.
 * @stat: which counter.
 *
 * Return: the count since the last reset (modulo the width of long).
 */
unsigned long tlb_policy_stats_read(struct tlb_policy_stats __percpu *stats,
				    const unsigned long *base,
				    enum tlb_policy_stat stat)
{
	return tlb_policy_stats_sum(stats, stat) - READ_ONCE(base[stat]);
}

/**
 * tlb_policy_stats_write() - handle a write to the stats file
 * @stats: the per-CPU counters.
 * @base: the sums at the last reset, updated.
 * @buf: the text written; only "0" is accepted, and resets all counters.
 *
 * A reset records the current sums in @base and writes no CPU's counter:
 * zeroing them would race with the non-atomic increments on other CPUs,
 * which could write back a count from before the reset. A flush that
 * races with the reset is counted on one side of it or the other.
 *
 * Return: 0, or -EINVAL and nothing reset.
 */
int tlb_policy_stats_write(struct tlb_policy_stats __percpu *stats,
			   unsigned long *base, const char *buf)
{
	int i;

	if (!sysfs_streq(buf, "0"))
		return -EINVAL;
	for (i = 0; i < TLB_STAT_NR; i++)
		WRITE_ONCE(base[i], tlb_policy_stats_sum(stats, i));
	return 0;
}

/**
 * tlb_policy_stats_enable() - start or stop counting flushes
 * @on: count from now on, or stop.
 *
 * Requests nest: counting goes on with the first and off with the last
 * one taken back, so that a test and a person at the debugfs file do not
 * turn it off under each other. Sleeps (it patches code).
 */
void tlb_policy_stats_enable(bool on)
{
	if (on)
		static_branch_inc(&tlb_policy_stats_key);
	else
		static_branch_dec(&tlb_policy_stats_key);
}

/* Count @f on this CPU, with interrupts disabled. */
static void tlb_policy_count_flush(const struct tlb_policy_flush *f)
{
	struct tlb_policy_stats *st = this_cpu_ptr(&tlb_policy_stats);
	static const enum tlb_policy_stat reach_stat[] = {
		[TLB_REACH_LOCAL]	= TLB_STAT_LOCAL,
		[TLB_REACH_IPI]		= TLB_STAT_IPI,
		[TLB_REACH_BROADCAST]	= TLB_STAT_BROADCAST,
	};

	if (f->reach < ARRAY_SIZE(reach_stat))
		st->v[reach_stat[f->reach]]++;
	if (f->why & TLB_WHY_THIS_CPU)
		st->v[TLB_STAT_ELIDED]++;
	if (f->why & TLB_WHY_MAX_OPS)
		st->v[TLB_STAT_FULL]++;
	if (!(f->why & TLB_WHY_YOUNG))
		return;
	/*
	 * An accessed-bit flush that reached no CPU skipped them all, and
	 * one that the caller kept on this CPU skipped the others.
	 */
	if (f->reach == TLB_REACH_NONE ||
	    (f->reach == TLB_REACH_LOCAL && (f->why & TLB_WHY_CALLER)))
		st->v[TLB_STAT_YOUNG_SKIPPED]++;
	if (f->reach != TLB_REACH_NONE && !(f->why & TLB_WHY_NOSYNC))
		st->v[TLB_STAT_YOUNG_WAITED]++;
}

/**
 * tlb_policy_note() - count a flush decision and emit its event
 * @f: the decision.
 *
 * Called through tlb_policy_record() while tlb_policy_observed(), from
 * any context. Every counter is computed here from the record that the
 * tlb_policy:tlb_policy_flush event gets, so that the two never
 * disagree. The record is @f with two things the core knows better: a
 * %TLB_WHY_MAX_OPS decision gets %TLB_WHY_ERRATUM while the
 * architecture's erratum forces max_ops, and an IPI flush whose CPUs are
 * this one alone (a kernel flush with one CPU online) is a local one.
 */
void tlb_policy_note(const struct tlb_policy_flush *f)
{
	const struct tlb_policy_arch *arch = tlb_policy_arch_desc;
	struct tlb_policy_flush r = *f;
	unsigned long flags;

	if ((r.why & TLB_WHY_MAX_OPS) && arch && arch->erratum)
		r.why |= TLB_WHY_ERRATUM;
	/*
	 * Which CPU this is matters only when no other CPU is in the mask,
	 * that is when only this one is online or it is the flush's only
	 * target, which it stays while the caller runs here.
	 */
	if (r.reach == TLB_REACH_IPI && r.cpus &&
	    cpumask_any_but(r.cpus, raw_smp_processor_id()) >= nr_cpu_ids)
		r.reach = TLB_REACH_LOCAL;
	if (tlb_policy_counting()) {
		/* Interrupts may flush too: keep their counts apart. */
		local_irq_save(flags);
		tlb_policy_count_flush(&r);
		local_irq_restore(flags);
	}
	trace_tlb_policy_flush(&r);
}

/* Make @p the policy, once, on the boot CPU before the others are up. */
static void __init tlb_policy_publish(const struct tlb_policy *p)
{
	tlb_policy_live = *p;
	WRITE_ONCE(tlb_policy_live_max_ops, p->max_ops);
	if (p->method == TLBI_METHOD_IPI)
		static_branch_enable(&tlb_policy_ipi_key);
	if (!p->is_auto)
		static_branch_disable(&tlb_policy_auto_key);
}

/*
 * Boot parameters are kept as typed and resolved in tlb_policy_init(),
 * when the architecture's description is known (it decides, for
 * example, whether "sbi" is a valid method). A value too long for its
 * buffer ends in "...", which no parser accepts, so that truncation
 * can never turn it into a different valid value.
 */
#define TLB_POLICY_ARG_LEN	32
static struct tlb_policy_req tlb_policy_req __initdata;

/*
 * The parameters exist only where an architecture follows them: a kernel
 * that builds the core for its KUnit tests alone does not take them.
 */
#ifdef CONFIG_ARCH_HAS_TLB_POLICY
static char tlb_policy_args[3][TLB_POLICY_ARG_LEN] __initdata;

static int __init tlb_policy_save_arg(char *arg, const char *val,
				      const char **slot)
{
	if (strscpy(arg, val ? val : "", TLB_POLICY_ARG_LEN) < 0)
		strscpy(arg + TLB_POLICY_ARG_LEN - 4, "...", 4);
	*slot = arg;
	return 0;
}

static int __init tlb_policy_method_param(char *val)
{
	return tlb_policy_save_arg(tlb_policy_args[0], val,
				   &tlb_policy_req.method);
}
early_param("tlbi_method", tlb_policy_method_param);

static int __init tlb_policy_max_ops_param(char *val)
{
	return tlb_policy_save_arg(tlb_policy_args[1], val,
				   &tlb_policy_req.max_ops);
}
early_param("tlbi_max_ops", tlb_policy_max_ops_param);

static int __init tlb_policy_young_param(char *val)
{
	return tlb_policy_save_arg(tlb_policy_args[2], val,
				   &tlb_policy_req.young);
}
early_param("tlbi_young", tlb_policy_young_param);
#endif /* CONFIG_ARCH_HAS_TLB_POLICY */

static void __init tlb_policy_report(const struct tlb_policy_arch *arch,
				     const struct tlb_policy_req *req,
				     const struct tlb_policy *p,
				     unsigned int flags)
{
	if (flags & TLB_POLICY_BAD_METHOD)
		pr_warn("invalid tlbi_method=\"%s\", using auto\n",
			req->method);
	if (flags & TLB_POLICY_UNSUP_METHOD)
		pr_warn("tlbi_method=%s is not supported on %s, falling back to auto\n",
			req->method, arch->name);
	if (flags & TLB_POLICY_BAD_MAX_OPS)
		pr_warn("invalid tlbi_max_ops=\"%s\", using the default %u\n",
			req->max_ops, arch->max_ops);
	if (flags & TLB_POLICY_CLAMPED_MAX_OPS)
		pr_warn("tlbi_max_ops=%s is too large, clamped to %u\n",
			req->max_ops, p->max_ops);
	if (flags & TLB_POLICY_ERRATUM_MAX_OPS)
		pr_warn("tlbi_max_ops=%s ignored: erratum %s forces %u\n",
			req->max_ops, arch->erratum, arch->erratum_max_ops);
	if (flags & TLB_POLICY_BAD_YOUNG)
		pr_warn("invalid tlbi_young=\"%s\", using %s\n", req->young,
			tlbi_young_names[arch->young]);
	if (flags & TLB_POLICY_UNSUP_YOUNG)
		pr_warn("tlbi_young=%s is not supported on %s, falling back to %s\n",
			req->young, arch->name, tlbi_young_names[arch->young]);

	pr_info("method=%s%s max_ops=%u young=%s\n",
		tlbi_method_names[p->method], p->is_auto ? " (auto)" : "",
		p->max_ops, tlbi_young_names[p->young]);
}

/**
 * tlb_policy_init() - resolve and publish the policy for this arch
 * @arch: what the architecture implements; must stay valid for ever.
 *
 * Called once by the architecture on the boot CPU, before the other CPUs
 * are brought up, once the early parameters are parsed and static keys
 * can be switched (arm64 calls it from setup_arch()). The method and the
 * accessed-bit mode it sets never change after. Until then max_ops is 0,
 * so every range flush is a full flush. Prints
 * one line describing the policy, preceded by a warning
 * for each part of the request that could not be honoured.
 */
void __init tlb_policy_init(const struct tlb_policy_arch *arch)
{
	struct tlb_policy p;
	unsigned int flags;

	if (WARN_ON(tlb_policy_arch_desc) ||
	    WARN_ON(!(arch->methods & BIT(arch->auto_method))) ||
	    WARN_ON(!(arch->young_modes & BIT(arch->young))) ||
	    WARN_ON(arch->max_ops > tlb_policy_max_ops_limit(arch)))
		return;

	flags = tlb_policy_resolve(arch, &tlb_policy_req, &p);
	tlb_policy_report(arch, &tlb_policy_req, &p, flags);
	tlb_policy_arch_desc = arch;
	tlb_policy_publish(&p);
}

/**
 * tlb_policy_arch_get() - the description the architecture registered
 *
 * Return: the struct tlb_policy_arch passed to tlb_policy_init(), or
 * NULL before that call and on an architecture that never makes it.
 */
const struct tlb_policy_arch *tlb_policy_arch_get(void)
{
	return tlb_policy_arch_desc;
}

#ifdef CONFIG_DEBUG_FS
enum {
	TLB_POLICY_FILE_METHOD,
	TLB_POLICY_FILE_MAX_OPS,
	TLB_POLICY_FILE_YOUNG,
	TLB_POLICY_FILE_STATS,
	TLB_POLICY_FILE_NR,
};

static const char *const tlb_policy_file_names[TLB_POLICY_FILE_NR] = {
	[TLB_POLICY_FILE_METHOD] = "method",
	[TLB_POLICY_FILE_MAX_OPS] = "max_ops",
	[TLB_POLICY_FILE_YOUNG] = "young",
	[TLB_POLICY_FILE_STATS] = "stats",
};

/* The sums at the last reset of the stats file. */
static unsigned long tlb_policy_stats_base[TLB_STAT_NR];

static int tlb_policy_show(struct seq_file *m, void *v)
{
	const struct tlb_policy_arch *arch = tlb_policy_arch_desc;
	long file = (long)m->private;
	char buf[64];
	int i;

	switch (file) {
	case TLB_POLICY_FILE_METHOD:
		tlb_policy_format_method(arch, &tlb_policy_live, buf,
					 sizeof(buf));
		seq_printf(m, "%s\n", buf);
		break;
	case TLB_POLICY_FILE_MAX_OPS:
		seq_printf(m, "%u\n", READ_ONCE(tlb_policy_live_max_ops));
		break;
	case TLB_POLICY_FILE_YOUNG:
		tlb_policy_format_young(arch, &tlb_policy_live, buf,
					sizeof(buf));
		seq_printf(m, "%s\n", buf);
		break;
	case TLB_POLICY_FILE_STATS:
		for (i = 0; i < TLB_STAT_NR; i++)
			seq_printf(m, "%s %lu\n", tlb_policy_stat_names[i],
				   tlb_policy_stats_read(&tlb_policy_stats,
							 tlb_policy_stats_base,
							 i));
		break;
	}
	return 0;
}

/* The debugfs file's own request to count; under tlb_policy_mutex. */
static bool tlb_policy_stats_on;

static int tlb_policy_open(struct inode *inode, struct file *file)
{
	return single_open(file, tlb_policy_show, inode->i_private);
}

static ssize_t tlb_policy_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	long which = (long)((struct seq_file *)file->private_data)->private;
	struct tlb_policy p;
	char buf[32];
	int ret;

	/* The method and the accessed-bit mode are set at boot only. */
	if (which != TLB_POLICY_FILE_MAX_OPS && which != TLB_POLICY_FILE_STATS)
		return -EPERM;
	if (*ppos || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	if (which == TLB_POLICY_FILE_STATS) {
		bool on = sysfs_streq(buf, "on");

		if (on || sysfs_streq(buf, "off")) {
			mutex_lock(&tlb_policy_mutex);
			if (on != tlb_policy_stats_on) {
				tlb_policy_stats_on = on;
				tlb_policy_stats_enable(on);
			}
			mutex_unlock(&tlb_policy_mutex);
			return len;
		}
		ret = tlb_policy_stats_write(&tlb_policy_stats,
					     tlb_policy_stats_base, buf);
		return ret ? ret : len;
	}

	mutex_lock(&tlb_policy_mutex);
	p = tlb_policy_live;
	ret = tlb_policy_set_max_ops(tlb_policy_arch_desc, &p, buf);
	if (!ret)
		WRITE_ONCE(tlb_policy_live_max_ops, p.max_ops);
	mutex_unlock(&tlb_policy_mutex);
	return ret ? ret : len;
}

static const struct file_operations tlb_policy_fops = {
	.owner = THIS_MODULE,
	.open = tlb_policy_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = tlb_policy_write,
	.release = single_release,
};

static int __init tlb_policy_debugfs_init(void)
{
	struct dentry *dir;
	long i;

	if (!tlb_policy_arch_desc)
		return 0;
	dir = debugfs_create_dir("tlb_policy", NULL);
	for (i = 0; i < TLB_POLICY_FILE_NR; i++)
		debugfs_create_file(tlb_policy_file_names[i],
				    i == TLB_POLICY_FILE_METHOD ||
				    i == TLB_POLICY_FILE_YOUNG ? 0400 : 0600,
				    dir, (void *)i, &tlb_policy_fops);
	return 0;
}
late_initcall(tlb_policy_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
