// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle's invalidation semantics, checked on the host: for each
 * architecture, an entry is kept across a change of tag, removed by the
 * invalidation forms that name its tag and page, and kept by those that
 * name another tag or stop a page short. The encodings are the ones the
 * kernel emits (see the comments); the plugin decodes the same bytes.
 * Built and run by tools/series/oracle/oracle --self-test (make check).
 */
#include "oracle-model.h"

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static struct om_tlb t;

static void fill(uint64_t tag, uint64_t va, uint64_t pa)
{
	uint64_t o1, o2;

	om_fill(&t, tag, va >> 12, pa >> 12, 0, false, &o1, &o2);
}

static bool kept(uint64_t tag, uint64_t va)
{
	return om_find(&t, tag, va >> 12) != NULL;
}

static void apply(struct om_inval r)
{
	CHECK(r.kind == OM_INVAL, "%s decodes as an invalidation", r.name);
	om_invalidate_blocks(&t, r.tag, r.vpn, r.npages);
}

/* The operand of TLBI VA forms: ASID in [63:48], VA[55:12] in [43:0]. */
static uint64_t arm64_va(uint64_t asid, uint64_t va)
{
	return asid << 48 | (va >> 12);
}

/* TLBI range operand: ASID, TG=1 (4K), SCALE, NUM, BaseADDR. */
static uint64_t arm64_range(uint64_t asid, unsigned int scale,
			    unsigned int num, uint64_t va, bool lpa2)
{
	return asid << 48 | 1ULL << 46 | (uint64_t)scale << 44 |
	       (uint64_t)num << 39 | (va >> (lpa2 ? 16 : 12));
}

/* TLBI <op>, Xt: SYS #0, C8, CRm, #op2, Xt */
static uint32_t tlbi(unsigned int crm, unsigned int op2)
{
	return 0xd5088000 | crm << 8 | op2 << 5 | 1;	/* Rt = x1 */
}

static void test_arm64(void)
{
	const uint64_t A = 0x400000, B = 0x7fff0000;
	unsigned int rt;

	om_init(&t);
	CHECK(om_arm64_is_tlbi(tlbi(3, 1), &rt) && rt == 1, "tlbi vae1is, x1");
	CHECK(!om_arm64_is_tlbi(0xd5033f9f, &rt), "dsb sy is no TLBI");
	CHECK(om_arm64_writes_tag(0xd5182020), "msr ttbr1_el1, x0");
	CHECK(om_arm64_writes_tag(0xd5182000), "msr ttbr0_el1, x0");
	CHECK(!om_arm64_writes_tag(0xd518d080), "msr tpidr_el1 is no tag");

	/* kept across an ASID switch and back */
	fill(5, A, 0x1000000);
	fill(6, A, 0x2000000);
	CHECK(kept(5, A) && kept(6, A), "entries of two ASIDs coexist");

	/* a VA form of another ASID leaves it */
	apply(om_arm64_tlbi(tlbi(3, 1), arm64_va(6, A), true, false));
	CHECK(kept(5, A) && !kept(6, A), "tlbi vae1is (ASID 6) removes only ASID 6");
	/* the local last-level form of the right ASID removes it */
	apply(om_arm64_tlbi(tlbi(7, 5), arm64_va(5, A), true, false));
	CHECK(!kept(5, A), "tlbi vale1 (ASID 5) removes it");
	CHECK(!om_arm64_tlbi(tlbi(7, 5), 0, true, false).broadcast &&
	      om_arm64_tlbi(tlbi(3, 5), 0, true, false).broadcast,
	      "vale1 is local, vale1is broadcast");

	/* 8-bit ASIDs: the top byte of the field is ignored */
	fill(0x34, A, 0x1000000);
	apply(om_arm64_tlbi(tlbi(3, 1), arm64_va(0x1234, A), false, false));
	CHECK(!kept(0x34, A), "8-bit ASIDs compare the low byte");

	/* aside1 removes one ASID, vmalle1 all, vaae1 one page of all */
	fill(5, A, 0x1000000);
	fill(5, B, 0x3000000);
	fill(7, A, 0x4000000);
	apply(om_arm64_tlbi(tlbi(3, 2), arm64_va(5, 0), true, false));
	CHECK(!kept(5, A) && !kept(5, B) && kept(7, A), "tlbi aside1is (5)");
	fill(5, A, 0x1000000);
	apply(om_arm64_tlbi(tlbi(3, 3), arm64_va(0, A), true, false));
	CHECK(!kept(5, A) && !kept(7, A), "tlbi vaae1is removes every ASID's page");
	fill(5, A, 0x1000000);
	apply(om_arm64_tlbi(tlbi(7, 0), 0, true, false));
	CHECK(t.used == 0, "tlbi vmalle1 removes everything");

	/* range: (NUM+1) << (5*SCALE+1) pages from BaseADDR */
	for (int i = 0; i < 64; i++)	/* 4 KiB pages, not a block */
		fill(5, A + i * 4096, 0x1001000 + i * 4096);
	apply(om_arm64_tlbi(tlbi(2, 5), arm64_range(5, 0, 30, A, false), true, false));
	CHECK(!kept(5, A) && !kept(5, A + 61 * 4096) && kept(5, A + 62 * 4096),
	      "tlbi rvale1is NUM=30 SCALE=0 covers 62 pages, not 63");
	apply(om_arm64_tlbi(tlbi(6, 1), arm64_range(5, 1, 0, A, false), true, false));
	CHECK(!kept(5, A + 63 * 4096), "tlbi rvae1 SCALE=1 NUM=0 covers 64 pages");
	/* LPA2: BaseADDR is VA[52:16] */
	fill(5, 0x12340000, 0x1000000);
	apply(om_arm64_tlbi(tlbi(2, 1), arm64_range(5, 0, 0, 0x12340000, true), true, true));
	CHECK(!kept(5, 0x12340000), "LPA2 range base in 64 KiB units");
	/* nXS forms (C9) are TLBIs too; a TTL of level 3 keeps blocks */
	CHECK(om_arm64_is_tlbi(0xd5089000 | 3 << 8 | 1 << 5 | 1, &rt), "tlbi vae1isnxs");
	CHECK(om_arm64_tlbi(tlbi(3, 1), 0x7ULL << 44 | arm64_va(0, A), true, false).leaf &&
	      !om_arm64_tlbi(tlbi(3, 1), arm64_va(0, A), true, false).leaf,
	      "TTL level 3 is a leaf-only invalidation, no TTL is not");
	CHECK(om_arm64_tlbi(tlbi(7, 3), 0xfULL << 44, true, false).kind == OM_NONE,
	      "a TTL for another granule removes nothing");
	/* what the model does not know */
	CHECK(om_arm64_tlbi(0xd50c8000 | 3 << 8 | 1, 0, true, false).kind == OM_UNKNOWN,
	      "an EL2 form is unknown, not ignored");
	CHECK(om_arm64_tlbi(tlbi(2, 5), 2ULL << 46, true, false).kind == OM_UNKNOWN,
	      "a 16K-granule range is unknown");
}

/* sfence.vma rs1, rs2 */
static uint32_t sfence(unsigned int rs1, unsigned int rs2)
{
	return 0x09u << 25 | rs2 << 20 | rs1 << 15 | 0x73;
}

static void test_riscv(void)
{
	const uint64_t A = 0x10000, B = 0x3fffff000;
	unsigned int rs1, rs2;
	const char *name;

	om_init(&t);
	CHECK(om_riscv_is_fence(0x12000073, &rs1, &rs2, &name) && !rs1 && !rs2,
	      "sfence.vma (0x12000073)");
	CHECK(om_riscv_is_fence(sfence(10, 11), &rs1, &rs2, &name) &&
	      rs1 == 10 && rs2 == 11, "sfence.vma a0, a1");
	CHECK(om_riscv_is_fence(0x16b50073, &rs1, &rs2, &name) &&
	      !strcmp(name, "sinval.vma"), "sinval.vma a0, a1");
	CHECK(om_riscv_writes_tag(0x18051073), "csrw satp, a0");
	CHECK(!om_riscv_writes_tag(0x14051073), "csrw sscratch is no tag");
	CHECK(om_riscv_is_unknown_fence(0x62000073), "hfence.gvma is unknown");

	fill(3, A, 0x80000000);
	fill(4, A, 0x81000000);
	/* rs1 and rs2: one page of one ASID */
	apply(om_riscv_fence(10, 11, A, 4, 16, "sfence.vma"));
	CHECK(kept(3, A) && !kept(4, A), "sfence.vma va, asid 4 keeps ASID 3");
	/* rs2 = x0: the page in every ASID */
	fill(4, A, 0x81000000);
	apply(om_riscv_fence(10, 0, A, 0, 16, "sfence.vma"));
	CHECK(!kept(3, A) && !kept(4, A), "sfence.vma va, zero");
	/* rs1 = x0: every page of one ASID */
	fill(3, A, 0x80000000);
	fill(3, B, 0x80001000);
	fill(4, B, 0x81001000);
	apply(om_riscv_fence(0, 11, 0, 3, 16, "sfence.vma"));
	CHECK(!kept(3, A) && !kept(3, B) && kept(4, B), "sfence.vma zero, asid 3");
	/* ASID 0 is an ASID like another: it does not mean all */
	apply(om_riscv_fence(0, 11, 0, 0, 16, "sfence.vma"));
	CHECK(kept(4, B), "sfence.vma zero, asid 0 (a register holding 0) keeps ASID 4");
	apply(om_riscv_fence(0, 0, 0, 0, 16, "sfence.vma"));
	CHECK(t.used == 0, "sfence.vma removes everything");
}

static void test_x86(void)
{
	/* invlpg (%rax); invlpg 0x8(%rdi,%rcx,4) */
	const uint8_t invlpg[] = { 0x0f, 0x01, 0x38 };
	const uint8_t invlpg_sib[] = { 0x0f, 0x01, 0x7c, 0x8f, 0x08 };
	/* invpcid (%rsi),%rax; invpcid (%r8),%r9 */
	const uint8_t invpcid[] = { 0x66, 0x0f, 0x38, 0x82, 0x06 };
	const uint8_t invpcid_rex[] = { 0x66, 0x45, 0x0f, 0x38, 0x82, 0x08 };
	/* mov %rdi,%cr3; mov %rax,%cr4; mov %cr3,%rax; invlpgb */
	const uint8_t cr3[] = { 0x0f, 0x22, 0xdf }, cr4[] = { 0x0f, 0x22, 0xe0 };
	const uint8_t from_cr3[] = { 0x0f, 0x20, 0xd8 }, invlpgb[] = { 0x0f, 0x01, 0xfe };
	const uint64_t A = 0x401000, U = 0x801;	/* a KPTI user PCID */
	struct om_x86 x;

	om_init(&t);
	x = om_x86_decode(invlpg, sizeof(invlpg));
	CHECK(x.op == OMX_INVLPG && x.base == 0 && x.index == -1 && !x.disp, "invlpg (%%rax)");
	x = om_x86_decode(invlpg_sib, sizeof(invlpg_sib));
	CHECK(x.op == OMX_INVLPG && x.base == 7 && x.index == 1 && x.scale == 4 &&
	      x.disp == 8, "invlpg 0x8(%%rdi,%%rcx,4)");
	x = om_x86_decode(invpcid, sizeof(invpcid));
	CHECK(x.op == OMX_INVPCID && x.reg == 0 && x.base == 6, "invpcid (%%rsi),%%rax");
	x = om_x86_decode(invpcid_rex, sizeof(invpcid_rex));
	CHECK(x.op == OMX_INVPCID && x.reg == 9 && x.base == 8, "invpcid (%%r8),%%r9");
	x = om_x86_decode(cr3, sizeof(cr3));
	CHECK(x.op == OMX_MOVCR && x.reg == 3 && x.rm == 7, "mov %%rdi,%%cr3");
	x = om_x86_decode(cr4, sizeof(cr4));
	CHECK(x.op == OMX_MOVCR && x.reg == 4 && x.rm == 0, "mov %%rax,%%cr4");
	CHECK(om_x86_decode(from_cr3, sizeof(from_cr3)).op == OMX_NONE, "mov %%cr3,%%rax reads");
	CHECK(om_x86_decode(invlpgb, sizeof(invlpgb)).op == OMX_UNKNOWN, "invlpgb is unknown");

	/* kernel PCID 1 and its KPTI user PCID 0x801 */
	fill(1, A, 0x100000);
	fill(U, A, 0x100000);
	apply(om_x86_invlpg(A, 1));
	CHECK(!kept(1, A) && kept(U, A), "invlpg under PCID 1 keeps the user PCID's entry");
	apply(om_x86_invpcid(0, U, A));
	CHECK(!kept(U, A), "invpcid 0 (0x801, A) removes it");
	fill(U, A, 0x100000);
	CHECK(om_x86_cr3(0x1000 | U | 1ULL << 63, true).kind == OM_NONE,
	      "mov cr3 with bit 63 flushes nothing");
	apply(om_x86_cr3(0x1000 | U, true));
	CHECK(!kept(U, A), "mov cr3 without bit 63 flushes the new PCID");
	fill(2, A, 0x200000);
	fill(U, A, 0x100000);
	apply(om_x86_invpcid(1, 2, 0));
	CHECK(!kept(2, A) && kept(U, A), "invpcid 1 is one PCID");
	apply(om_x86_cr3(0x1000, false));
	CHECK(!kept(U, A), "without PCIDE, mov cr3 flushes every entry");
	fill(U, A, 0x100000);
	CHECK(om_x86_cr4(0x20, 0x20 | 1 << 9).kind == OM_NONE, "CR4.OSFXSR flushes nothing");
	apply(om_x86_cr4(0x80 | 1 << 17, 1 << 17));
	CHECK(!kept(U, A), "clearing CR4.PGE flushes everything");
	CHECK(om_x86_invpcid(4, 0, 0).kind == OM_UNKNOWN, "invpcid type 4 is unknown");
}

/* A 2 MiB block: one invalidation by address inside it removes it all. */
static void test_blocks(void)
{
	const uint64_t V = 0x40000000, P = 0x80000000;

	om_init(&t);
	for (int i = 0; i < 512; i++)
		fill(5, V + i * 4096, P + i * 4096);
	fill(5, V + 0x200000, 0x12345000);	/* a 4K page in the next 2M */
	apply(om_arm64_tlbi(tlbi(3, 1), arm64_va(5, V + 0x1000), true, false));
	CHECK(!kept(5, V) && !kept(5, V + 511 * 4096),
	      "tlbi vae1is inside a 2 MiB block removes the block");
	CHECK(kept(5, V + 0x200000), "and not the next 2 MiB");
	for (int i = 0; i < 512; i++)
		fill(5, V + i * 4096, P + i * 4096);
	fill(5, V + 0x5000, 0x7777000);		/* not at its block offset */
	apply(om_riscv_fence(10, 0, V, 0, 16, "sfence.vma"));
	CHECK(!kept(5, V + 4096) && kept(5, V + 0x5000),
	      "sfence.vma va, zero removes the block, not a 4 KiB page elsewhere");
}

static void test_stale(void)
{
	uint64_t old = 0, pc = 0;

	om_init(&t);
	om_fill(&t, 9, 0x10, 0x100, 0x1234, false, &old, &pc);
	CHECK(!om_fill(&t, 9, 0x10, 0x100, 0x1238, false, &old, &pc), "same page: no report");
	CHECK(om_fill(&t, 9, 0x10, 0x200, 0x123c, false, &old, &pc) && old == 0x100 &&
	      pc == 0x1238, "another page: a report naming the retained one");
	/* the table grows and removal keeps every other entry findable */
	for (uint64_t i = 0; i < 5000; i++)
		om_fill(&t, i & 7, i, i, 0, false, &old, &pc);
	om_invalidate(&t, 3, 0, OM_ALL_PAGES);
	for (uint64_t i = 0; i < 5000; i++)
		if ((i & 7) != 3 && !om_find(&t, i & 7, i)) {
			CHECK(0, "entry %llu lost by a removal", (unsigned long long)i);
			break;
		}
	CHECK(!om_find(&t, 3, 3), "tag 3 gone");
}

/* Faults: would a retained entry have translated the access? */
static void test_faults(void)
{
	uint64_t old, pc, target, ra = 0;
	bool w;

	om_init(&t);
	om_fill(&t, 5, 0x10, 0x100, 0, false, &old, &pc);	/* read */
	CHECK(om_fault_would_translate(&t, 5, 0x10, false), "a read fault under a kept entry");
	CHECK(!om_fault_would_translate(&t, 5, 0x10, true),
	      "a write fault under a read-only entry is the spurious-fault rule");
	CHECK(!om_fault_would_translate(&t, 6, 0x10, false), "another ASID's fault");
	om_fill(&t, 5, 0x10, 0x100, 0, true, &old, &pc);	/* write */
	CHECK(om_fault_would_translate(&t, 5, 0x10, true), "a write fault under a written entry");
	om_fill(&t, 5, 0x10, 0x200, 0, false, &old, &pc);	/* another page */
	CHECK(!om_fault_would_translate(&t, 5, 0x10, true), "a new page starts read-only");

	/* ESR: EC 0x24, DFSC translation level 3 (0x07), permission (0x0f), AF (0x0b) */
	CHECK(om_arm64_fault(0x24ULL << 26 | 1 << 6 | 0x07, &w) && w, "arm64 write translation fault");
	CHECK(om_arm64_fault(0x24ULL << 26 | 1 << 6 | 0x0f, &w) && w, "arm64 write permission fault");
	CHECK(!om_arm64_fault(0x24ULL << 26 | 0x0b, &w), "arm64 access-flag fault is rule 2");
	CHECK(!om_arm64_fault(0x20ULL << 26 | 0x07, &w), "arm64 instruction abort is not filled");
	/* the user tag of an EL0 fault: swapper at 0x4000, trampoline at 0x8000 */
	{
		uint64_t tg = 0;

		CHECK(!om_arm64_el0_tag(0x3e, true, 0x3eULL << 48 | 0x4000, 0, &tg),
		      "no fill from EL0 yet: the user tag is unknown");
		CHECK(om_arm64_el0_tag(0x3e, true, 0x3eULL << 48 | 0x4000,
				       0x50ULL << 48 | 0x4000, &tg) && tg == 0x3e,
		      "no KPTI: the tag at entry is the user's, whichever mm ran last");
		CHECK(om_arm64_el0_tag(0x48, true, 0x48ULL << 48 | 0x4000,
				       0x51ULL << 48 | 0x8000, &tg) && tg == 0x49,
		      "KPTI: the user ASID is the kernel's with bit 0 set");
		CHECK(om_arm64_el0_tag(0x48, false, 0x4000, 0x8000, &tg) && tg == 0x48,
		      "TCR_EL1.A1 clear: TTBR1 holds no ASID");
	}
	CHECK(om_riscv_fault(13, &w) && !w && om_riscv_fault(15, &w) && w &&
	      !om_riscv_fault(12, &w), "riscv load, store, fetch page faults");
	CHECK(om_x86_fault(0x6, &w) && w && !om_x86_fault(0x14, &w) &&
	      !om_x86_fault(0x27, &w) && !om_x86_fault(0xd, &w), "x86 error codes (fetch, PK, RSVD)");

	/* the calls whose return is the handler's return */
	CHECK(om_arm64_call(0x97fffffe, 0x1008, &target) && target == 0x1000, "bl .-8");
	CHECK(!om_riscv_call(0x00001097, 0x2000, &ra, &target) && ra == 0x3000 &&
	      om_riscv_call(0x902080e7, 0x2004, &ra, &target) && target == 0x3000 - 1790,
	      "auipc ra; jalr -1790(ra)");
	CHECK(om_x86_call((const uint8_t *)"\xe8\x2a\xd5\x5f\x00", 5, 0xffffffff81001211ULL,
			  &target) && target == 0xffffffff815fe740ULL, "call rel32");
}

int main(void)
{
	test_arm64();
	test_riscv();
	test_x86();
	test_blocks();
	test_faults();
	test_stale();
	printf("oracle-selftest: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
