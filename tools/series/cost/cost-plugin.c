// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (QEMU 7.2 plugin API, version 1) that counts what a
 * guest executes between marker instructions, on all vCPUs: every
 * instruction, and the barriers, TLB invalidations, atomics, interrupt
 * disables and divisions among them, decoded from the instruction bytes.
 *
 * The guest brackets each operation it wants counted with "on" and "off"
 * markers (a window) and ends a workload with "report", which writes one
 * line for the windows since the last report and starts a new phase: for
 * each class the median over the windows ("insn=") and the sum
 * ("sum.insn="). A timer tick that lands in a few windows moves the sum
 * but not the median. Markers are NOPs on hardware:
 *   arm64   hint #0x70, #0x71, #0x72
 *   riscv   addi x0, x0, 0x70 / 0x71 / 0x72
 *   x86_64  nopl 0x7e5c0570(%rax), ...0571, ...0572
 *
 * Counters are updated inline and are not atomic: run QEMU with one
 * thread for all vCPUs (-accel tcg,thread=single, or -icount), which
 * also makes the counts repeatable.
 *
 * Arguments: arch=arm64|riscv|x86_64 (required), outfile=PATH (default:
 * QEMU's log), profile=PATH: also write, at exit, one line per translated
 * block executed inside a window, "VADDR INSNS TIMES [CLASS=N...]" (hex
 * address, its instructions, how often it ran, and how many of its
 * instructions fall in each class it has, for example "atomic=1"), for
 * tools/series/cost/cost-profile;
 * phase=N limits the profile to the windows of phase N.
 *
 * Built by tools/series/cost/cost-plugin; used by tools/series/cost/cost.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum cls {
	C_INSN,
	C_DSB_ISH, C_DSB_ISHST, C_DSB_OTHER, C_DMB, C_ISB,	/* arm64 */
	C_FENCE, C_FENCE_I,					/* riscv */
	C_MFENCE, C_LSFENCE,					/* x86 */
	C_TLBI_BCAST, C_TLBI_LOCAL,				/* arm64 */
	C_SFENCE_VMA, C_SINVAL_VMA,				/* riscv */
	C_INVLPG, C_INVPCID, C_CR3, C_INVLPGB, C_TLBSYNC,	/* x86 */
	C_ATOMIC, C_IRQ_OFF, C_DIV, C_ECALL,
	C_NR,
	/* Not counted: the markers. */
	C_MARK_ON = C_NR, C_MARK_OFF, C_MARK_REPORT, C_NONE,
};

static const char *const cls_name[C_NR] = {
	[C_INSN] = "insn",
	[C_DSB_ISH] = "dsb_ish", [C_DSB_ISHST] = "dsb_ishst",
	[C_DSB_OTHER] = "dsb_other", [C_DMB] = "dmb", [C_ISB] = "isb",
	[C_FENCE] = "fence", [C_FENCE_I] = "fence_i",
	[C_MFENCE] = "mfence", [C_LSFENCE] = "lsfence",
	[C_TLBI_BCAST] = "tlbi_bcast", [C_TLBI_LOCAL] = "tlbi_local",
	[C_SFENCE_VMA] = "sfence_vma", [C_SINVAL_VMA] = "sinval_vma",
	[C_INVLPG] = "invlpg", [C_INVPCID] = "invpcid", [C_CR3] = "cr3_write",
	[C_INVLPGB] = "invlpgb", [C_TLBSYNC] = "tlbsync",
	[C_ATOMIC] = "atomic", [C_IRQ_OFF] = "irq_off", [C_DIV] = "div",
	[C_ECALL] = "ecall",
};

enum { ARCH_NONE, ARCH_ARM64, ARCH_RISCV, ARCH_X86_64 };
static int arch;
static FILE *out;

/* profile=: the blocks translated, each counted while a window is on. */
struct block {
	uint64_t vaddr, times;
	size_t insns;
	unsigned int n[C_NR];	/* instructions of each class */
	struct block *next;
};
static struct block *blocks;
static FILE *profile;
static long profile_phase = -1;

static uint64_t raw[C_NR];	/* since start; updated inline */
static uint64_t on_at[C_NR];	/* raw at the last "on" */
static uint64_t (*win)[C_NR];	/* this phase's windows */
static size_t nwin, maxwin;
static int on;
static unsigned int phase;

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static enum cls arm64_class(uint32_t i)
{
	unsigned int crm = (i >> 8) & 0xf, crn = (i >> 12) & 0xf;

	switch (i) {
	case 0xd5032e1f: return C_MARK_ON;	/* hint #0x70 */
	case 0xd5032e3f: return C_MARK_OFF;
	case 0xd5032e5f: return C_MARK_REPORT;
	}
	if ((i & 0xfffff0ff) == 0xd503309f) {	/* DSB */
		if (crm == 0xb)
			return C_DSB_ISH;
		return crm == 0xa ? C_DSB_ISHST : C_DSB_OTHER;
	}
	if ((i & 0xfffff0ff) == 0xd50330bf)
		return C_DMB;
	if ((i & 0xfffff0ff) == 0xd50330df)
		return C_ISB;
	/* SYS with CRn 8 (or 9, nXS): TLBI. CRm 4, 6, 7: this PE only. */
	if ((i & 0xfff80000) == 0xd5080000 && (crn == 8 || crn == 9))
		return (crm == 4 || crm == 6 || crm == 7) ? C_TLBI_LOCAL :
							    C_TLBI_BCAST;
	/* LSE atomic memory operations, but not LDAPR. */
	if ((i & 0x3f200c00) == 0x38200000 && (i & 0xf000) != 0xc000)
		return C_ATOMIC;
	if ((i & 0x3fa07c00) == 0x08a07c00)	/* CAS */
		return C_ATOMIC;
	if ((i & 0x3fc00000) == 0x08000000)	/* STXR, STXP, CASP */
		return C_ATOMIC;
	/* MSR DAIFSet with the I bit. */
	if ((i & 0xfffff0ff) == 0xd50340df && (crm & 2))
		return C_IRQ_OFF;
	if ((i & 0x7fe0f800) == 0x1ac00800)	/* UDIV, SDIV */
		return C_DIV;
	return C_NONE;
}

static enum cls riscv_class(const uint8_t *p, size_t n)
{
	uint32_t i, op, f3, f7;

	if (n != 4)
		return C_NONE;		/* compressed: none of ours */
	i = le32(p);
	op = i & 0x7f;
	f3 = (i >> 12) & 7;
	f7 = i >> 25;
	switch (i) {
	case 0x07000013: return C_MARK_ON;	/* addi x0, x0, 0x70 */
	case 0x07100013: return C_MARK_OFF;
	case 0x07200013: return C_MARK_REPORT;
	case 0x00000073: return C_ECALL;
	case 0x18000073: return C_FENCE;	/* sfence.w.inval */
	case 0x18100073: return C_FENCE;	/* sfence.inval.ir */
	}
	if (op == 0x0f)
		return f3 == 1 ? C_FENCE_I : f3 == 0 ? C_FENCE : C_NONE;
	if ((i & 0xfe007fff) == 0x12000073)
		return C_SFENCE_VMA;
	if ((i & 0xfe007fff) == 0x16000073)
		return C_SINVAL_VMA;
	if (op == 0x2f && (f3 == 2 || f3 == 3))	/* AMOs and SC, not LR */
		return (i >> 27) == 2 ? C_NONE : C_ATOMIC;
	/* csrrci/csrrsi? No: csrrci sstatus with SIE, the irq disable. */
	if (op == 0x73 && f3 == 7 && (i >> 20) == 0x100 && ((i >> 15) & 2))
		return C_IRQ_OFF;
	if ((op == 0x33 || op == 0x3b) && f7 == 1 && f3 >= 4)
		return C_DIV;
	return C_NONE;
}

static enum cls x86_class(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	int lock = 0, opsize = 0;
	uint8_t b, m;

	if (n == 7 && p[0] == 0x0f && p[1] == 0x1f && p[2] == 0x80 &&
	    p[4] == 0x05 && p[5] == 0x5c && p[6] == 0x7e) {
		switch (p[3]) {
		case 0x70: return C_MARK_ON;
		case 0x71: return C_MARK_OFF;
		case 0x72: return C_MARK_REPORT;
		}
	}
	for (; p < end; p++) {
		b = *p;
		if (b == 0xf0)
			lock = 1;
		else if (b == 0x66)
			opsize = 1;
		else if (!(b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 ||
			   b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 ||
			   b == 0x67))
			break;
	}
	if (p < end && (*p & 0xf0) == 0x40)	/* REX */
		p++;
	if (p >= end)
		return C_NONE;
	if (lock)
		return C_ATOMIC;
	b = *p++;
	m = p < end ? *p : 0;
	switch (b) {
	case 0x86: case 0x87:			/* xchg with memory */
		return p < end && (m & 0xc0) != 0xc0 ? C_ATOMIC : C_NONE;
	case 0xfa:
		return C_IRQ_OFF;		/* cli */
	case 0xf6: case 0xf7:
		return p < end && ((m >> 3) & 7) >= 6 ? C_DIV : C_NONE;
	case 0x0f:
		break;
	default:
		return C_NONE;
	}
	if (p >= end)
		return C_NONE;
	b = *p++;
	m = p < end ? *p : 0;
	if (p >= end)
		return C_NONE;
	switch (b) {
	case 0x01:
		if (m == 0xfe)
			return C_INVLPGB;
		if (m == 0xff)
			return C_TLBSYNC;
		return (m & 0xc0) != 0xc0 && ((m >> 3) & 7) == 7 ? C_INVLPG :
								   C_NONE;
	case 0x22:
		return ((m >> 3) & 7) == 3 ? C_CR3 : C_NONE;
	case 0xae:
		if ((m & 0xf8) == 0xf0)
			return C_MFENCE;
		return (m & 0xf8) == 0xe8 || (m & 0xf8) == 0xf8 ? C_LSFENCE :
								  C_NONE;
	case 0x38:
		return opsize && m == 0x82 ? C_INVPCID : C_NONE;
	}
	return C_NONE;
}

static enum cls classify(struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);

	switch (arch) {
	case ARCH_ARM64:
		return n == 4 ? arm64_class(le32(p)) : C_NONE;
	case ARCH_RISCV:
		return riscv_class(p, n);
	default:
		return x86_class(p, n);
	}
}

static void mark_on(unsigned int vcpu, void *udata)
{
	if (!on)
		memcpy(on_at, raw, sizeof(raw));
	on = 1;
}

static void mark_off(unsigned int vcpu, void *udata)
{
	int c;

	if (!on)
		return;
	on = 0;
	if (nwin == maxwin) {
		void *w = realloc(win, (maxwin * 2 + 64) * sizeof(*win));

		if (!w) {
			fprintf(stderr, "cost-plugin: out of memory\n");
			exit(1);
		}
		win = w;
		maxwin = maxwin * 2 + 64;
	}
	for (c = 0; c < C_NR; c++)
		win[nwin][c] = raw[c] - on_at[c];
	nwin++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of class @c over the windows (the lower one of two). */
static uint64_t median(int c, uint64_t *tmp)
{
	size_t i;

	for (i = 0; i < nwin; i++)
		tmp[i] = win[i][c];
	qsort(tmp, nwin, sizeof(*tmp), cmp_u64);
	return nwin ? tmp[(nwin - 1) / 2] : 0;
}

static void mark_report(unsigned int vcpu, void *udata)
{
	uint64_t *tmp, sum, med;
	size_t i, size = 64 + C_NR * 64;
	char *line;
	int c, len;

	mark_off(vcpu, udata);
	tmp = calloc(nwin + 1, sizeof(*tmp));
	line = malloc(size);
	if (!tmp || !line) {
		fprintf(stderr, "cost-plugin: out of memory\n");
		exit(1);
	}
	len = snprintf(line, size, "tlbp-cost phase=%u windows=%zu", phase++,
		       nwin);
	for (c = 0; c < C_NR; c++) {
		for (sum = 0, i = 0; i < nwin; i++)
			sum += win[i][c];
		if (!sum)
			continue;
		med = median(c, tmp);
		len += snprintf(line + len, size - len,
				" %s=%llu sum.%s=%llu", cls_name[c],
				(unsigned long long)med, cls_name[c],
				(unsigned long long)sum);
	}
	snprintf(line + len, size - len, "\n");
	if (out) {
		fputs(line, out);
		fflush(out);
	} else {
		qemu_plugin_outs(line);
	}
	free(line);
	free(tmp);
	nwin = 0;
}

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (on && (profile_phase < 0 || profile_phase == (long)phase))
		b->times++;
}

static void profile_write(qemu_plugin_id_t id, void *p)
{
	struct block *b;
	int c;

	for (b = blocks; b; b = b->next) {
		if (!b->times)
			continue;
		fprintf(profile, "%llx %zu %llu", (unsigned long long)b->vaddr,
			b->insns, (unsigned long long)b->times);
		for (c = C_INSN + 1; c < C_NR; c++)
			if (b->n[c])
				fprintf(profile, " %s=%u", cls_name[c], b->n[c]);
		fputc('\n', profile);
	}
	fclose(profile);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static void (*const mark_cb[])(unsigned int, void *) = {
		[C_MARK_ON - C_NR] = mark_on,
		[C_MARK_OFF - C_NR] = mark_off,
		[C_MARK_REPORT - C_NR] = mark_report,
	};
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = NULL;

	if (profile) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			fprintf(stderr, "cost-plugin: out of memory\n");
			exit(1);
		}
		b->vaddr = qemu_plugin_tb_vaddr(tb);
		b->insns = n;
		b->next = blocks;
		blocks = b;
		qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec,
						     QEMU_PLUGIN_CB_NO_REGS, b);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		enum cls c = classify(insn);

		if (c >= C_MARK_ON && c <= C_MARK_REPORT) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
				mark_cb[c - C_NR], QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, &raw[C_INSN], 1);
		if (c < C_NR) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &raw[c], 1);
			if (b)
				b->n[c]++;
		}
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "arch=arm64"))
			arch = ARCH_ARM64;
		else if (!strcmp(argv[i], "arch=riscv"))
			arch = ARCH_RISCV;
		else if (!strcmp(argv[i], "arch=x86_64"))
			arch = ARCH_X86_64;
		else if (!strncmp(argv[i], "outfile=", 8)) {
			out = fopen(argv[i] + 8, "w");
			if (!out) {
				perror(argv[i] + 8);
				return -1;
			}
		} else if (!strncmp(argv[i], "phase=", 6)) {
			profile_phase = strtol(argv[i] + 6, NULL, 10);
		} else if (!strncmp(argv[i], "profile=", 8)) {
			profile = fopen(argv[i] + 8, "w");
			if (!profile) {
				perror(argv[i] + 8);
				return -1;
			}
		} else {
			fprintf(stderr, "cost-plugin: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (arch == ARCH_NONE) {
		fprintf(stderr, "cost-plugin: give arch=arm64|riscv|x86_64\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	if (profile)
		qemu_plugin_register_atexit_cb(id, profile_write, NULL);
	return 0;
}
