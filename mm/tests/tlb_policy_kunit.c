// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the TLB flush policy core.
 *
 * Everything here runs against fake architecture descriptions and
 * private copies of the policy and the counters, so the suite runs on
 * any architecture (UML included) and never changes the live policy of
 * the kernel it runs in.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/tlb_policy.h>

#define M(x)	BIT(TLBI_METHOD_##x)
#define Y(x)	BIT(TLBI_YOUNG_##x)
#define ALL_YOUNG	(Y(SYNC) | Y(NOSYNC) | Y(NONE))

/* Broadcast-capable, page-counting (arm64 without FEAT_TLBIRANGE). */
static const struct tlb_policy_arch fake_bcast = {
	.name = "fake-bcast",
	.methods = M(IPI) | M(BROADCAST),
	.auto_method = TLBI_METHOD_BROADCAST,
	.max_ops = 512,
	.young_modes = ALL_YOUNG,
	.young = TLBI_YOUNG_NOSYNC,
};

/* IPI only (x86). */
static const struct tlb_policy_arch fake_ipi = {
	.name = "fake-ipi",
	.methods = M(IPI),
	.auto_method = TLBI_METHOD_IPI,
	.max_ops = 33,
	.young_modes = Y(NONE),
	.young = TLBI_YOUNG_NONE,
};

/* With a ceiling on max_ops below the core's, as arm64 has. */
#define FAKE_RANGE_LIMIT	4096
static const struct tlb_policy_arch fake_range = {
	.name = "fake-range",
	.methods = M(IPI) | M(BROADCAST),
	.auto_method = TLBI_METHOD_BROADCAST,
	.max_ops = 512,
	.max_ops_limit = FAKE_RANGE_LIMIT,
	.young_modes = ALL_YOUNG,
	.young = TLBI_YOUNG_NOSYNC,
};

/* riscv-like: "sbi" spells broadcast, auto is IPI, an erratum forces 0. */
static const struct tlb_policy_arch fake_erratum = {
	.name = "fake-erratum",
	.methods = M(IPI) | M(BROADCAST),
	.auto_method = TLBI_METHOD_IPI,
	.broadcast_alias = "sbi",
	.max_ops = 64,
	.young_modes = Y(NONE),
	.young = TLBI_YOUNG_NONE,
	.erratum = "fake-cip",
	.erratum_max_ops = 0,
};

/* ---- parsing ---------------------------------------------------------- */

struct parse_case {
	const char *s;
	const char *alias;
	int ret;
	unsigned long long val;
	bool clamped;
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	if (c->s)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"%s%s", c->s,
			 c->alias ? " alias " : "", c->alias ? c->alias : "");
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "NULL");
	strreplace(desc, '\n', '~');
}

static const struct parse_case method_cases[] = {
	{ "auto", NULL, 0, TLBI_METHOD_AUTO },
	{ "ipi", NULL, 0, TLBI_METHOD_IPI },
	{ "broadcast", NULL, 0, TLBI_METHOD_BROADCAST },
	{ "ipi\n", NULL, 0, TLBI_METHOD_IPI },
	{ "sbi", "sbi", 0, TLBI_METHOD_BROADCAST },
	{ "broadcast", "sbi", 0, TLBI_METHOD_BROADCAST },
	{ "sbi", NULL, -EINVAL },
	{ "SBI", "sbi", -EINVAL },
	{ "", NULL, -EINVAL },
	{ "IPI", NULL, -EINVAL },
	{ "Auto", NULL, -EINVAL },
	{ "ipi2", NULL, -EINVAL },
	{ "ipi ", NULL, -EINVAL },
	{ " ipi", NULL, -EINVAL },
	{ "ipi\n\n", NULL, -EINVAL },
	{ "broad", NULL, -EINVAL },
	{ "bogus", NULL, -EINVAL },
	{ "-1", NULL, -EINVAL },
	{ NULL, NULL, -EINVAL },
};

KUNIT_ARRAY_PARAM(method, method_cases, parse_case_desc);

static void tlb_policy_parse_method_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	enum tlbi_method m = TLBI_METHOD_NR;
	int ret = tlb_policy_parse_method(c->s, c->alias, &m);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, m, ret ? TLBI_METHOD_NR : c->val);
}

static const struct parse_case max_ops_cases[] = {
	{ "0", NULL, 0, 0 },
	{ "1", NULL, 0, 1 },
	{ "512", NULL, 0, 512 },
	{ "512\n", NULL, 0, 512 },
	{ "+7", NULL, 0, 7 },
	{ "007", NULL, 0, 7 },
	{ "1048576", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT },
	{ "1048577", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "4294967296", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "18446744073709551615", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "18446744073709551616", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "18446744073709551616\n", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "0x10000000000000000", NULL, 0, TLB_POLICY_MAX_OPS_LIMIT, true },
	{ "18446744073709551616x", NULL, -EINVAL },
	{ "99999999999999999999999999999...", NULL, -EINVAL },
	{ "18446744073709551616\n\n", NULL, -EINVAL },
	{ "0x21", NULL, 0, 33 },
	{ "0X21\n", NULL, 0, 33 },
	{ "010", NULL, 0, 8 },
	{ "09", NULL, -EINVAL },
	{ "0x", NULL, -EINVAL },
	{ "", NULL, -EINVAL },
	{ "-3", NULL, -EINVAL },
	{ "-0", NULL, -EINVAL },
	{ "12abc", NULL, -EINVAL },
	{ " 5", NULL, -EINVAL },
	{ "5 ", NULL, -EINVAL },
	{ "5...", NULL, -EINVAL },
	{ "abc", NULL, -EINVAL },
	{ NULL, NULL, -EINVAL },
};

KUNIT_ARRAY_PARAM(max_ops, max_ops_cases, parse_case_desc);

static void tlb_policy_parse_max_ops_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	unsigned int v = 12345;
	bool clamped = false;
	int ret = tlb_policy_parse_max_ops(c->s, &v, &clamped);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (ret) {
		KUNIT_EXPECT_EQ(test, v, 12345);
		return;
	}
	KUNIT_EXPECT_EQ(test, v, c->val);
	KUNIT_EXPECT_EQ(test, clamped, c->clamped);
}

static const struct parse_case young_cases[] = {
	{ "sync", NULL, 0, TLBI_YOUNG_SYNC },
	{ "nosync", NULL, 0, TLBI_YOUNG_NOSYNC },
	{ "none", NULL, 0, TLBI_YOUNG_NONE },
	{ "none\n", NULL, 0, TLBI_YOUNG_NONE },
	{ "", NULL, -EINVAL },
	{ "NONE", NULL, -EINVAL },
	{ "nosyncx", NULL, -EINVAL },
	{ "no", NULL, -EINVAL },
	{ "0", NULL, -EINVAL },
	{ NULL, NULL, -EINVAL },
};

KUNIT_ARRAY_PARAM(young, young_cases, parse_case_desc);

static void tlb_policy_parse_young_test(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	enum tlbi_young y = TLBI_YOUNG_NR;
	int ret = tlb_policy_parse_young(c->s, &y);

	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, y, ret ? TLBI_YOUNG_NR : c->val);
}

/* ---- resolution ------------------------------------------------------- */

struct resolve_case {
	const char *name;
	const struct tlb_policy_arch *arch;
	struct tlb_policy_req req;
	enum tlbi_method method;
	bool is_auto;
	unsigned int max_ops;
	enum tlbi_young young;
	unsigned int flags;
};

static void resolve_case_desc(const struct resolve_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s", c->arch->name,
		 c->name);
}

static void expect_policy(struct kunit *test, const struct tlb_policy *p,
			  const struct tlb_policy *want)
{
	KUNIT_EXPECT_EQ(test, p->method, want->method);
	KUNIT_EXPECT_EQ(test, p->is_auto, want->is_auto);
	KUNIT_EXPECT_EQ(test, p->max_ops, want->max_ops);
	KUNIT_EXPECT_EQ(test, p->young, want->young);
}

static void check_resolve(struct kunit *test, const struct resolve_case *c)
{
	const struct tlb_policy want = {
		c->method, c->is_auto, c->max_ops, c->young
	};
	struct tlb_policy p;
	unsigned int flags = tlb_policy_resolve(c->arch, &c->req, &p);

	KUNIT_EXPECT_EQ(test, flags, c->flags);
	expect_policy(test, &p, &want);
	/* Whatever was asked, the result is something the arch implements. */
	KUNIT_EXPECT_TRUE(test, c->arch->methods & BIT(p.method));
	KUNIT_EXPECT_TRUE(test, c->arch->young_modes & BIT(p.young));
}

#define BC	TLBI_METHOD_BROADCAST
#define IPI	TLBI_METHOD_IPI
static const struct resolve_case defaults_cases[] = {
	{ "defaults", &fake_bcast, {}, BC, true, 512, TLBI_YOUNG_NOSYNC },
	{ "defaults", &fake_ipi, {}, IPI, true, 33, TLBI_YOUNG_NONE },
	{ "defaults", &fake_range, {}, BC, true, 512, TLBI_YOUNG_NOSYNC },
	{ "defaults", &fake_erratum, {}, IPI, true, 0, TLBI_YOUNG_NONE },
};

KUNIT_ARRAY_PARAM(defaults, defaults_cases, resolve_case_desc);

static void tlb_policy_resolve_defaults_test(struct kunit *test)
{
	check_resolve(test, test->param_value);
}

static const struct resolve_case method_resolve_cases[] = {
	{ "auto", &fake_bcast, { .method = "auto" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC },
	{ "explicit broadcast", &fake_bcast, { .method = "broadcast" }, BC,
	  false, 512, TLBI_YOUNG_NOSYNC },
	{ "explicit ipi", &fake_bcast, { .method = "ipi" }, IPI, false, 512,
	  TLBI_YOUNG_NOSYNC },
	{ "auto without broadcast", &fake_ipi, { .method = "auto" }, IPI,
	  true, 33, TLBI_YOUNG_NONE },
	{ "unsupported broadcast", &fake_ipi, { .method = "broadcast" }, IPI,
	  true, 33, TLBI_YOUNG_NONE, TLB_POLICY_UNSUP_METHOD },
	{ "garbage", &fake_bcast, { .method = "bogus" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC, TLB_POLICY_BAD_METHOD },
	{ "empty", &fake_bcast, { .method = "" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC, TLB_POLICY_BAD_METHOD },
	{ "alias", &fake_erratum, { .method = "sbi" }, BC, false, 0,
	  TLBI_YOUNG_NONE },
	{ "alias elsewhere", &fake_bcast, { .method = "sbi" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC, TLB_POLICY_BAD_METHOD },
};

KUNIT_ARRAY_PARAM(method_resolve, method_resolve_cases, resolve_case_desc);

static void tlb_policy_resolve_method_test(struct kunit *test)
{
	check_resolve(test, test->param_value);
}

static const struct resolve_case max_ops_resolve_cases[] = {
	{ "0", &fake_bcast, { .max_ops = "0" }, BC, true, 0,
	  TLBI_YOUNG_NOSYNC },
	{ "1", &fake_bcast, { .max_ops = "1" }, BC, true, 1,
	  TLBI_YOUNG_NOSYNC },
	{ "100000", &fake_ipi, { .max_ops = "100000" }, IPI, true, 100000,
	  TLBI_YOUNG_NONE },
	{ "huge", &fake_bcast, { .max_ops = "99999999999" }, BC, true,
	  TLB_POLICY_MAX_OPS_LIMIT, TLBI_YOUNG_NOSYNC,
	  TLB_POLICY_CLAMPED_MAX_OPS },
	{ "negative", &fake_bcast, { .max_ops = "-3" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC, TLB_POLICY_BAD_MAX_OPS },
	{ "junk", &fake_ipi, { .max_ops = "33x" }, IPI, true, 33,
	  TLBI_YOUNG_NONE, TLB_POLICY_BAD_MAX_OPS },
	{ "truncated", &fake_ipi,
	  { .max_ops = "0000000000000000000000000000..." }, IPI, true, 33,
	  TLBI_YOUNG_NONE, TLB_POLICY_BAD_MAX_OPS },
	{ "at the arch's limit", &fake_range, { .max_ops = "4096" }, BC, true,
	  FAKE_RANGE_LIMIT, TLBI_YOUNG_NOSYNC },
	{ "above the arch's limit", &fake_range, { .max_ops = "4097" }, BC,
	  true, FAKE_RANGE_LIMIT, TLBI_YOUNG_NOSYNC,
	  TLB_POLICY_CLAMPED_MAX_OPS },
	{ "above both limits", &fake_range, { .max_ops = "99999999999" }, BC,
	  true, FAKE_RANGE_LIMIT, TLBI_YOUNG_NOSYNC,
	  TLB_POLICY_CLAMPED_MAX_OPS },
	{ "erratum wins", &fake_erratum, { .max_ops = "64" }, IPI, true, 0,
	  TLBI_YOUNG_NONE, TLB_POLICY_ERRATUM_MAX_OPS },
	{ "erratum agrees", &fake_erratum, { .max_ops = "0" }, IPI, true, 0,
	  TLBI_YOUNG_NONE },
	{ "erratum and junk", &fake_erratum, { .max_ops = "x" }, IPI, true, 0,
	  TLBI_YOUNG_NONE, TLB_POLICY_ERRATUM_MAX_OPS },
	{ "erratum and huge", &fake_erratum, { .max_ops = "99999999999" }, IPI,
	  true, 0, TLBI_YOUNG_NONE, TLB_POLICY_ERRATUM_MAX_OPS },
};

KUNIT_ARRAY_PARAM(max_ops_resolve, max_ops_resolve_cases, resolve_case_desc);

static void tlb_policy_resolve_max_ops_test(struct kunit *test)
{
	check_resolve(test, test->param_value);
}

static const struct resolve_case young_resolve_cases[] = {
	{ "sync", &fake_bcast, { .young = "sync" }, BC, true, 512,
	  TLBI_YOUNG_SYNC },
	{ "none", &fake_bcast, { .young = "none" }, BC, true, 512,
	  TLBI_YOUNG_NONE },
	{ "unsupported", &fake_ipi, { .young = "sync" }, IPI, true, 33,
	  TLBI_YOUNG_NONE, TLB_POLICY_UNSUP_YOUNG },
	{ "garbage", &fake_bcast, { .young = "fast" }, BC, true, 512,
	  TLBI_YOUNG_NOSYNC, TLB_POLICY_BAD_YOUNG },
};

KUNIT_ARRAY_PARAM(young_resolve, young_resolve_cases, resolve_case_desc);

static void tlb_policy_resolve_young_test(struct kunit *test)
{
	check_resolve(test, test->param_value);
}

/* The bench's garbage command line: every part falls back, each warns. */
static void tlb_policy_resolve_all_garbage(struct kunit *test)
{
	const struct resolve_case c = {
		"garbage", &fake_range,
		{ .method = "bogus", .max_ops = "-3", .young = "maybe" },
		BC, true, 512, TLBI_YOUNG_NOSYNC,
		TLB_POLICY_BAD_METHOD | TLB_POLICY_BAD_MAX_OPS |
		TLB_POLICY_BAD_YOUNG,
	};

	check_resolve(test, &c);
}

/* An arch's ceiling applies only below the core's own. */
static void tlb_policy_max_ops_limit_test(struct kunit *test)
{
	struct tlb_policy_arch above = fake_bcast;

	KUNIT_EXPECT_EQ(test, tlb_policy_max_ops_limit(&fake_bcast),
			TLB_POLICY_MAX_OPS_LIMIT);
	KUNIT_EXPECT_EQ(test, tlb_policy_max_ops_limit(&fake_range),
			FAKE_RANGE_LIMIT);
	above.max_ops_limit = TLB_POLICY_MAX_OPS_LIMIT + 1;
	KUNIT_EXPECT_EQ(test, tlb_policy_max_ops_limit(&above),
			TLB_POLICY_MAX_OPS_LIMIT);
}

/* A request for a method the arch lacks falls back to auto, not IPI. */
static void tlb_policy_resolve_fallback_is_auto(struct kunit *test)
{
	const struct tlb_policy_req req = { .method = "broadcast" };
	struct tlb_policy p;

	KUNIT_EXPECT_EQ(test, tlb_policy_resolve(&fake_ipi, &req, &p),
			TLB_POLICY_UNSUP_METHOD);
	KUNIT_EXPECT_TRUE(test, p.is_auto);
	KUNIT_EXPECT_EQ(test, p.method, fake_ipi.auto_method);
}

/* ---- decisions -------------------------------------------------------- */

struct decide_case {
	unsigned long nr_ops;
	unsigned int max_ops;
	enum tlb_flush_kind kind;
};

static void decide_case_desc(const struct decide_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "ops=%lu max_ops=%u", c->nr_ops,
		 c->max_ops);
}

#define R	TLB_FLUSH_RANGE
#define F	TLB_FLUSH_FULL
#define N	TLB_FLUSH_NONE
#define LIM	TLB_POLICY_MAX_OPS_LIMIT
static const struct decide_case decide_cases[] = {
	/* max_ops = 0: every non-empty range is a full flush. */
	{ 0, 0, N }, { 1, 0, F }, { 2, 0, F },
	/* max_ops = 1 */
	{ 0, 1, N }, { 1, 1, R }, { 2, 1, F },
	/* the x86, riscv and arm64 defaults, at N-1, N and N+1 */
	{ 32, 33, R }, { 33, 33, R }, { 34, 33, F },
	{ 63, 64, R }, { 64, 64, R }, { 65, 64, F },
	{ 511, 512, R }, { 512, 512, R }, { 513, 512, F },
	/* the largest threshold */
	{ LIM - 1, LIM, R }, { LIM, LIM, R }, { LIM + 1UL, LIM, F },
	/*
	 * "everything" is always a full flush, under any threshold the core
	 * accepts (at most LIM, which is below ULONG_MAX on 32-bit too)
	 */
	{ ULONG_MAX, 0, F }, { ULONG_MAX, LIM, F }, { ULONG_MAX - 1, LIM, F },
};

KUNIT_ARRAY_PARAM(decide, decide_cases, decide_case_desc);

static void tlb_policy_decide_test(struct kunit *test)
{
	const struct decide_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, tlb_policy_decide(c->nr_ops, c->max_ops),
			c->kind);
}

/* A zero-length range needs no flush whatever max_ops says. */
static void tlb_policy_decide_zero_length(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tlb_policy_decide(0, 0), TLB_FLUSH_NONE);
	KUNIT_EXPECT_EQ(test, tlb_policy_decide(0, LIM), TLB_FLUSH_NONE);
}

/* size == -1, as riscv and x86 spell "flush everything". */
static void tlb_policy_decide_flush_all(struct kunit *test)
{
	unsigned long pages = ULONG_MAX;

	KUNIT_EXPECT_EQ(test, tlb_policy_decide(pages, 0), TLB_FLUSH_FULL);
	KUNIT_EXPECT_EQ(test, tlb_policy_decide(pages, LIM), TLB_FLUSH_FULL);
}

struct reach_case {
	enum tlbi_method method;
	bool is_auto;
	struct tlb_flush_facts f;
	enum tlb_flush_reach reach;
	unsigned int why;
};

static void reach_case_desc(const struct reach_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%s,%s%s%s%s",
		 c->method == TLBI_METHOD_IPI ? "ipi" : "broadcast",
		 c->is_auto ? " (auto)" : "",
		 c->f.others ? " others" : " this cpu only",
		 c->f.atomic ? " atomic" : "",
		 c->f.no_broadcast ? " no broadcast" : "",
		 c->f.shared == TLB_WHY_PINNED ? " pinned" :
		 c->f.shared ? " global asid" : "");
}

#define F_OTHERS		.others = true
#define F_ATOMIC		.atomic = true
#define F_NO_BC		.no_broadcast = true
#define F_PINNED		.shared = TLB_WHY_PINNED
#define F_GLOBAL		.shared = TLB_WHY_GLOBAL_ASID

static const struct reach_case reach_cases[] = {
	{ BC, true, {}, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ BC, true, { F_OTHERS }, TLB_REACH_BROADCAST },
	{ BC, true, { F_OTHERS, F_ATOMIC }, TLB_REACH_BROADCAST },
	/* an explicit broadcast never elides, where it exists */
	{ BC, false, {}, TLB_REACH_BROADCAST },
	{ BC, false, { F_OTHERS }, TLB_REACH_BROADCAST },
	{ BC, false, { F_NO_BC }, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	/* no broadcast form (x86 without a hypervisor's flush): IPIs */
	{ BC, true, { F_OTHERS, F_NO_BC }, TLB_REACH_IPI },
	{ BC, false, { F_OTHERS, F_NO_BC }, TLB_REACH_IPI },
	{ BC, true, { F_NO_BC }, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ IPI, true, { F_OTHERS, F_NO_BC }, TLB_REACH_IPI },
	{ IPI, true, { F_NO_BC }, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ IPI, true, {}, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ IPI, true, { F_OTHERS }, TLB_REACH_IPI },
	{ IPI, false, {}, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ IPI, false, { F_OTHERS }, TLB_REACH_IPI },
	/* an IPI that cannot be waited for: a broadcast, if there is one */
	{ IPI, false, { F_OTHERS, F_ATOMIC }, TLB_REACH_BROADCAST,
	  TLB_WHY_ATOMIC },
	{ IPI, false, { F_ATOMIC }, TLB_REACH_LOCAL, TLB_WHY_THIS_CPU },
	{ IPI, false, { F_OTHERS, F_ATOMIC, F_NO_BC }, TLB_REACH_IPI },
	/* only a broadcast reaches a shared ASID, even from this CPU alone */
	{ IPI, false, { F_PINNED }, TLB_REACH_BROADCAST, TLB_WHY_PINNED },
	{ IPI, false, { F_OTHERS, F_PINNED }, TLB_REACH_BROADCAST,
	  TLB_WHY_PINNED },
	{ BC, true, { F_GLOBAL }, TLB_REACH_BROADCAST, TLB_WHY_GLOBAL_ASID },
	{ BC, true, { F_OTHERS, F_GLOBAL }, TLB_REACH_BROADCAST,
	  TLB_WHY_GLOBAL_ASID },
	/* a shared ASID wins over "no broadcast form" (x86 passes both) */
	{ IPI, true, { F_OTHERS, F_GLOBAL, F_NO_BC }, TLB_REACH_BROADCAST,
	  TLB_WHY_GLOBAL_ASID },
	{ BC, true, { F_GLOBAL, F_NO_BC }, TLB_REACH_BROADCAST,
	  TLB_WHY_GLOBAL_ASID },
};

#undef F_OTHERS
#undef F_ATOMIC
#undef F_NO_BC
#undef F_PINNED
#undef F_GLOBAL

KUNIT_ARRAY_PARAM(reach, reach_cases, reach_case_desc);

/* The reach, and the one reason it adds to those the caller had. */
static void tlb_policy_reach_test(struct kunit *test)
{
	const struct reach_case *c = test->param_value;
	unsigned int why = TLB_WHY_BATCH;

	KUNIT_EXPECT_EQ(test, __tlb_policy_reach(c->method, c->is_auto, c->f,
						 &why), c->reach);
	KUNIT_EXPECT_EQ(test, why, TLB_WHY_BATCH | c->why);
}

/* ---- max_ops written through debugfs, and what debugfs shows --------- */

static struct tlb_policy policy_of(const struct tlb_policy_arch *arch)
{
	const struct tlb_policy_req none = {};
	struct tlb_policy p;

	tlb_policy_resolve(arch, &none, &p);
	return p;
}

struct set_case {
	const struct tlb_policy_arch *arch;
	const char *buf;
	int ret;
	struct tlb_policy after;
};

static void set_case_desc(const struct set_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s \"%s\"", c->arch->name,
		 c->buf);
	strreplace(desc, '\n', '~');
}

static void check_set(struct kunit *test, const struct set_case *c,
		      int (*set)(const struct tlb_policy_arch *,
				 struct tlb_policy *, const char *))
{
	struct tlb_policy before = policy_of(c->arch), p = before;

	KUNIT_EXPECT_EQ(test, set(c->arch, &p, c->buf), c->ret);
	/* A refused write changes nothing at all. */
	expect_policy(test, &p, c->ret ? &before : &c->after);
}

#define POL(m, a, ops, y) { TLBI_METHOD_##m, a, ops, TLBI_YOUNG_##y }
static const struct set_case set_max_ops_cases[] = {
	{ &fake_bcast, "0\n", 0, POL(BROADCAST, true, 0, NOSYNC) },
	{ &fake_bcast, "1", 0, POL(BROADCAST, true, 1, NOSYNC) },
	{ &fake_bcast, "0x21\n", 0, POL(BROADCAST, true, 33, NOSYNC) },
	{ &fake_bcast, "1048576\n", 0, POL(BROADCAST, true, LIM, NOSYNC) },
	{ &fake_bcast, "1048577\n", -EINVAL },
	{ &fake_bcast, "-1\n", -EINVAL },
	{ &fake_bcast, "", -EINVAL },
	{ &fake_bcast, "12 34", -EINVAL },
	{ &fake_bcast, "99999999999999999999", -EINVAL },
	{ &fake_erratum, "64\n", -EINVAL },
	{ &fake_erratum, "0\n", 0, POL(IPI, true, 0, NONE) },
	{ &fake_range, "4096\n", 0, POL(BROADCAST, true, 4096, NOSYNC) },
	{ &fake_range, "4097\n", -EINVAL },
	{ &fake_range, "1048576\n", -EINVAL },
};

KUNIT_ARRAY_PARAM(set_max_ops, set_max_ops_cases, set_case_desc);

static void tlb_policy_set_max_ops_test(struct kunit *test)
{
	check_set(test, test->param_value, tlb_policy_set_max_ops);
}

struct format_case {
	const struct tlb_policy_arch *arch;
	struct tlb_policy p;
	const char *method, *young;
};

static void format_case_desc(const struct format_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", c->arch->name,
		 c->method);
}

static const struct format_case format_cases[] = {
	{ &fake_bcast, POL(BROADCAST, true, 512, NOSYNC),
	  "[auto:broadcast] ipi broadcast", "sync [nosync] none" },
	{ &fake_bcast, POL(BROADCAST, false, 512, SYNC),
	  "auto ipi [broadcast]", "[sync] nosync none" },
	{ &fake_bcast, POL(IPI, false, 512, NONE),
	  "auto [ipi] broadcast", "sync nosync [none]" },
	{ &fake_ipi, POL(IPI, true, 33, NONE), "[auto:ipi] ipi", "[none]" },
};

KUNIT_ARRAY_PARAM(format, format_cases, format_case_desc);

static void tlb_policy_format_test(struct kunit *test)
{
	const struct format_case *c = test->param_value;
	char buf[64];

	KUNIT_EXPECT_EQ(test, tlb_policy_format_method(c->arch, &c->p, buf,
						       sizeof(buf)),
			strlen(c->method));
	KUNIT_EXPECT_STREQ(test, buf, c->method);
	KUNIT_EXPECT_EQ(test, tlb_policy_format_young(c->arch, &c->p, buf,
						      sizeof(buf)),
			strlen(c->young));
	KUNIT_EXPECT_STREQ(test, buf, c->young);
}

/* A short buffer is truncated, never overrun. */
static void tlb_policy_format_short_buffer(struct kunit *test)
{
	const struct tlb_policy p = POL(BROADCAST, true, 512, NOSYNC);
	char buf[12];

	memset(buf, 'x', sizeof(buf));
	tlb_policy_format_method(&fake_bcast, &p, buf, 8);
	KUNIT_EXPECT_STREQ(test, buf, "[auto:b");
	KUNIT_EXPECT_EQ(test, buf[8], 'x');
}

/* ---- counters --------------------------------------------------------- */

static void free_stats(void *s)
{
	free_percpu((struct tlb_policy_stats __percpu __force *)s);
}

/* Counters freed when the test ends, however it ends. */
static struct tlb_policy_stats __percpu *alloc_stats(struct kunit *test)
{
	struct tlb_policy_stats __percpu *s = alloc_percpu(struct tlb_policy_stats);

	KUNIT_ASSERT_NOT_NULL(test, (void __force *)s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_stats,
							(void __force *)s), 0);
	return s;
}

/* The sum covers every possible CPU, for each counter separately. */
static void tlb_policy_stats_sum_test(struct kunit *test)
{
	struct tlb_policy_stats __percpu *s = alloc_stats(test);
	unsigned long n = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		for (i = 0; i < TLB_STAT_NR; i++)
			per_cpu_ptr(s, cpu)->v[i] = (i + 1) * (cpu + 1);
		n += cpu + 1;
	}
	for (i = 0; i < TLB_STAT_NR; i++)
		KUNIT_EXPECT_EQ(test, tlb_policy_stats_sum(s, i), (i + 1) * n);
}

/*
 * A reset reads as 0 from then on, and counts after it show, without
 * writing any CPU's counter (which would race with its increments).
 */
static void tlb_policy_stats_reset_test(struct kunit *test)
{
	struct tlb_policy_stats __percpu *s = alloc_stats(test);
	unsigned long base[TLB_STAT_NR] = {};
	int cpu, i;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(s, cpu)->v[TLB_STAT_IPI] = 7;
	KUNIT_EXPECT_EQ(test, tlb_policy_stats_read(s, base, TLB_STAT_IPI),
			7 * num_possible_cpus());
	KUNIT_EXPECT_EQ(test, tlb_policy_stats_write(s, base, "0\n"), 0);
	for (i = 0; i < TLB_STAT_NR; i++)
		KUNIT_EXPECT_EQ(test, tlb_policy_stats_read(s, base, i), 0);
	KUNIT_EXPECT_EQ(test, tlb_policy_stats_sum(s, TLB_STAT_IPI),
			7 * num_possible_cpus());
	this_cpu_add(s->v[TLB_STAT_IPI], 2);
	KUNIT_EXPECT_EQ(test, tlb_policy_stats_read(s, base, TLB_STAT_IPI), 2);
}

static const char *const bad_stats_writes[] = {
	"1", "", "00", "0 ", "reset", "-0",
};

/* Anything but "0" is refused and leaves the counters alone. */
static void tlb_policy_stats_write_rejects(struct kunit *test)
{
	struct tlb_policy_stats __percpu *s = alloc_stats(test);
	unsigned long base[TLB_STAT_NR] = {};
	int i;

	this_cpu_write(s->v[TLB_STAT_FULL], 5);
	for (i = 0; i < ARRAY_SIZE(bad_stats_writes); i++) {
		const char *buf = bad_stats_writes[i];

		KUNIT_EXPECT_EQ(test, tlb_policy_stats_write(s, base, buf),
				-EINVAL);
		KUNIT_EXPECT_EQ(test,
				tlb_policy_stats_read(s, base, TLB_STAT_FULL), 5);
	}
}

/*
 * Record twice on this CPU a skipped accessed-bit flush; return how much
 * the live counter moved.
 */
static unsigned long count_twice(void)
{
	unsigned long before, after, flags;

	local_irq_save(flags);
	before = this_cpu_read(tlb_policy_stats.v[TLB_STAT_YOUNG_SKIPPED]);
	tlb_policy_record(.reach = TLB_REACH_NONE, .why = TLB_WHY_YOUNG);
	tlb_policy_record(.reach = TLB_REACH_NONE, .why = TLB_WHY_YOUNG);
	after = this_cpu_read(tlb_policy_stats.v[TLB_STAT_YOUNG_SKIPPED]);
	/* Nothing was skipped: leave the live counters as they were. */
	this_cpu_sub(tlb_policy_stats.v[TLB_STAT_YOUNG_SKIPPED], after - before);
	local_irq_restore(flags);
	return after - before;
}

/*
 * The live counters count on the local CPU while counting is on, and
 * not at all while it is off; requests to count nest.
 */
static void tlb_policy_count_test(struct kunit *test)
{
	bool was_on = static_key_enabled(&tlb_policy_stats_key);

	tlb_policy_stats_enable(true);
	tlb_policy_stats_enable(true);
	KUNIT_EXPECT_EQ(test, count_twice(), 2);
	tlb_policy_stats_enable(false);
	KUNIT_EXPECT_EQ(test, count_twice(), 2);
	tlb_policy_stats_enable(false);
	if (!was_on)
		KUNIT_EXPECT_EQ(test, count_twice(), 0);
}

/* A record, and what each counter must move by for it. */
struct note_case {
	const char *name;
	enum tlb_flush_reach reach;
	unsigned int why;
	unsigned long pages;
	unsigned char want[TLB_STAT_NR];
};

static const struct note_case note_cases[] = {
	{ "local, elided", TLB_REACH_LOCAL, TLB_WHY_THIS_CPU, 1,
	  { [TLB_STAT_LOCAL] = 1, [TLB_STAT_ELIDED] = 1 } },
	{ "local, asked by the caller", TLB_REACH_LOCAL, TLB_WHY_CALLER, 1,
	  { [TLB_STAT_LOCAL] = 1 } },
	{ "ipi", TLB_REACH_IPI, 0, 1, { [TLB_STAT_IPI] = 1 } },
	{ "broadcast", TLB_REACH_BROADCAST, 0, 1,
	  { [TLB_STAT_BROADCAST] = 1 } },
	{ "broadcast, atomic", TLB_REACH_BROADCAST, TLB_WHY_ATOMIC, 1,
	  { [TLB_STAT_BROADCAST] = 1 } },
	{ "over max_ops", TLB_REACH_BROADCAST, TLB_WHY_MAX_OPS, 600,
	  { [TLB_STAT_BROADCAST] = 1, [TLB_STAT_FULL] = 1 } },
	{ "over max_ops, local", TLB_REACH_LOCAL,
	  TLB_WHY_MAX_OPS | TLB_WHY_THIS_CPU, 600,
	  { [TLB_STAT_LOCAL] = 1, [TLB_STAT_FULL] = 1,
	    [TLB_STAT_ELIDED] = 1 } },
	{ "everything", TLB_REACH_IPI, TLB_WHY_KERNEL, TLB_POLICY_PAGES_ALL,
	  { [TLB_STAT_IPI] = 1 } },
	{ "young, none", TLB_REACH_NONE, TLB_WHY_YOUNG, 1,
	  { [TLB_STAT_YOUNG_SKIPPED] = 1 } },
	{ "young, sync", TLB_REACH_BROADCAST, TLB_WHY_YOUNG, 1,
	  { [TLB_STAT_BROADCAST] = 1, [TLB_STAT_YOUNG_WAITED] = 1 } },
	{ "young, nosync", TLB_REACH_BROADCAST,
	  TLB_WHY_YOUNG | TLB_WHY_NOSYNC, 1, { [TLB_STAT_BROADCAST] = 1 } },
	{ "young, nosync, this CPU only", TLB_REACH_LOCAL,
	  TLB_WHY_YOUNG | TLB_WHY_NOSYNC | TLB_WHY_CALLER, 1,
	  { [TLB_STAT_LOCAL] = 1, [TLB_STAT_YOUNG_SKIPPED] = 1 } },
	{ "young, sync, elided", TLB_REACH_LOCAL,
	  TLB_WHY_YOUNG | TLB_WHY_THIS_CPU, 1,
	  { [TLB_STAT_LOCAL] = 1, [TLB_STAT_ELIDED] = 1,
	    [TLB_STAT_YOUNG_WAITED] = 1 } },
	{ "batch", TLB_REACH_IPI, TLB_WHY_BATCH, TLB_POLICY_PAGES_ALL,
	  { [TLB_STAT_IPI] = 1 } },
};

static void note_case_desc(const struct note_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(note, note_cases, note_case_desc);

/*
 * Note @f with counting on and store in @delta how much each of this
 * CPU's counters moved; then take the moves back, as nothing was flushed.
 */
static void note_deltas(const struct tlb_policy_flush *f, unsigned long *delta)
{
	unsigned long before[TLB_STAT_NR], flags;
	int i;

	tlb_policy_stats_enable(true);
	local_irq_save(flags);
	for (i = 0; i < TLB_STAT_NR; i++)
		before[i] = this_cpu_read(tlb_policy_stats.v[i]);
	tlb_policy_note(f);
	for (i = 0; i < TLB_STAT_NR; i++) {
		delta[i] = this_cpu_read(tlb_policy_stats.v[i]) - before[i];
		this_cpu_sub(tlb_policy_stats.v[i], delta[i]);
	}
	local_irq_restore(flags);
	tlb_policy_stats_enable(false);
}

/*
 * The counters are a view of the records: each record moves exactly the
 * counters its reach and reasons name, on this CPU.
 */
static void tlb_policy_note_counts_test(struct kunit *test)
{
	const struct note_case *c = test->param_value;
	const struct tlb_policy_flush f = {
		.start = 0x10000, .pages = c->pages, .stride = 4096,
		.ops = 1, .reach = c->reach, .why = c->why,
	};
	unsigned long delta[TLB_STAT_NR];
	int i;

	note_deltas(&f, delta);
	for (i = 0; i < TLB_STAT_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, delta[i], (unsigned long)c->want[i],
				    "counter %d", i);
}

/* An IPI flush that names this CPU alone is counted as local. */
static void tlb_policy_note_ipi_self_test(struct kunit *test)
{
	struct tlb_policy_flush f = {
		.pages = 1, .ops = 1, .reach = TLB_REACH_IPI,
		.why = TLB_WHY_KERNEL,
	};
	unsigned long delta[TLB_STAT_NR];

	/* The test's CPU: the note runs here, with interrupts off. */
	migrate_disable();
	f.cpus = cpumask_of(smp_processor_id());
	note_deltas(&f, delta);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, delta[TLB_STAT_LOCAL], 1UL);
	KUNIT_EXPECT_EQ(test, delta[TLB_STAT_IPI], 0UL);
}

static struct kunit_case tlb_policy_test_cases[] = {
	KUNIT_CASE_PARAM(tlb_policy_parse_method_test, method_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_parse_max_ops_test, max_ops_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_parse_young_test, young_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_resolve_defaults_test,
			 defaults_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_resolve_method_test,
			 method_resolve_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_resolve_max_ops_test,
			 max_ops_resolve_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_resolve_young_test,
			 young_resolve_gen_params),
	KUNIT_CASE(tlb_policy_resolve_all_garbage),
	KUNIT_CASE(tlb_policy_resolve_fallback_is_auto),
	KUNIT_CASE(tlb_policy_max_ops_limit_test),
	KUNIT_CASE_PARAM(tlb_policy_decide_test, decide_gen_params),
	KUNIT_CASE(tlb_policy_decide_zero_length),
	KUNIT_CASE(tlb_policy_decide_flush_all),
	KUNIT_CASE_PARAM(tlb_policy_reach_test, reach_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_set_max_ops_test, set_max_ops_gen_params),
	KUNIT_CASE_PARAM(tlb_policy_format_test, format_gen_params),
	KUNIT_CASE(tlb_policy_format_short_buffer),
	KUNIT_CASE(tlb_policy_stats_sum_test),
	KUNIT_CASE(tlb_policy_stats_reset_test),
	KUNIT_CASE(tlb_policy_stats_write_rejects),
	KUNIT_CASE(tlb_policy_count_test),
	KUNIT_CASE_PARAM(tlb_policy_note_counts_test, note_gen_params),
	KUNIT_CASE(tlb_policy_note_ipi_self_test),
	{}
};

static struct kunit_suite tlb_policy_test_suite = {
	.name = "tlb_policy",
	.test_cases = tlb_policy_test_cases,
};

kunit_test_suite(tlb_policy_test_suite);

MODULE_DESCRIPTION("KUnit tests for the TLB flush policy core");
MODULE_LICENSE("GPL");
