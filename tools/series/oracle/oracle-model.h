/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle's model: a TLB that forgets nothing, one per vCPU, and the
 * decoders of the invalidation instructions that empty it. No QEMU
 * here, so that tools/series/oracle/oracle-selftest.c can drive it on the host;
 * tools/series/oracle/oracle-plugin.c feeds it from a running guest.
 *
 * An entry is (tag, virtual page) -> physical page, filled by every
 * load and store to the user half of the address space. Linux maps the
 * user half with non-global entries on all three architectures (nG on
 * arm64, G clear on riscv and x86), so every entry carries the tag
 * (ASID or PCID) it was filled under, and a retained entry may be used
 * whenever that tag is current again, until an invalidation that the
 * architecture says removes it. The rules are in tools/series/oracle/oracle.md.
 */
#ifndef ORACLE_MODEL_H
#define ORACLE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OM_ALL_TAGS	UINT64_MAX	/* any tag */
#define OM_ALL_PAGES	UINT64_MAX	/* any page */
#define OM_HISTORY	8

struct om_entry {
	uint64_t key;		/* tag << 48 | vpn; 0 is never a key */
	uint64_t ppn;
	uint64_t pc;		/* where it was filled */
	bool w;			/* a store used it: it is writable */
};

/* One vCPU's TLB: an open-addressing hash table that only grows. */
struct om_tlb {
	struct om_entry *e;
	uint64_t mask;		/* slots - 1 */
	uint64_t used;
	char history[OM_HISTORY][96];	/* last invalidations, newest at hpos-1 */
	unsigned int hpos;
	uint64_t invalidations;
};

static inline uint64_t om_key(uint64_t tag, uint64_t vpn)
{
	/* vpn < 2^44 (a 56-bit address), tag < 2^16; +1 keeps 0 free */
	return ((tag & 0xffff) << 48 | (vpn & 0xffffffffffffULL)) + 1;
}

static inline uint64_t om_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static void om_init(struct om_tlb *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 1023;
	t->e = calloc(t->mask + 1, sizeof(*t->e));
	if (!t->e) {
		fprintf(stderr, "oracle: out of memory\n");
		abort();
	}
}

static struct om_entry *om_slot(struct om_tlb *t, uint64_t key)
{
	uint64_t i = om_hash(key) & t->mask;

	while (t->e[i].key && t->e[i].key != key)
		i = (i + 1) & t->mask;
	return &t->e[i];
}

static struct om_entry *om_find(struct om_tlb *t, uint64_t tag, uint64_t vpn)
{
	struct om_entry *e = om_slot(t, om_key(tag, vpn));

	return e->key ? e : NULL;
}

static void om_grow(struct om_tlb *t)
{
	struct om_entry *old = t->e;
	uint64_t n = t->mask + 1, i;

	t->mask = 2 * n - 1;
	t->e = calloc(2 * n, sizeof(*t->e));
	if (!t->e) {
		fprintf(stderr, "oracle: out of memory\n");
		abort();
	}
	for (i = 0; i < n; i++)
		if (old[i].key)
			*om_slot(t, old[i].key) = old[i];
	free(old);
}

/*
 * Fill (tag, vpn) -> ppn. Returns the entry it replaces when that one
 * translated to another physical page (*old_ppn, *old_pc), which is
 * what a real TLB could have used instead: a stale translation.
 */
static bool om_fill(struct om_tlb *t, uint64_t tag, uint64_t vpn, uint64_t ppn,
		    uint64_t pc, bool write, uint64_t *old_ppn, uint64_t *old_pc)
{
	struct om_entry *e = om_slot(t, om_key(tag, vpn));
	bool stale = false;

	if (e->key) {
		if (e->ppn != ppn) {
			stale = true;
			*old_ppn = e->ppn;
			*old_pc = e->pc;
			e->w = false;
		}
	} else {
		e->w = false;
		if (2 * (t->used + 1) > t->mask + 1) {
			om_grow(t);
			e = om_slot(t, om_key(tag, vpn));
		}
		e->key = om_key(tag, vpn);
		t->used++;
	}
	e->ppn = ppn;
	e->pc = pc;
	e->w |= write;
	return stale;
}

/*
 * A fault the kernel is about to handle, on (tag, vpn): would a
 * retained entry have let the access through? A read needs any entry,
 * a write one that a store used (hardware sets no dirty state in a
 * read-only entry). If so, and the entry is still there when the
 * handler returns, a real TLB could have used it.
 */
static struct om_entry *om_fault_would_translate(struct om_tlb *t, uint64_t tag,
						 uint64_t vpn, bool write)
{
	struct om_entry *e = om_find(t, tag, vpn);

	return e && (!write || e->w) ? e : NULL;
}

/*
 * The faults that count, from what the handler is given: returns false
 * for those that are not a failed translation of a load or store (an
 * instruction fetch, which the model does not fill; arm64's access-flag
 * faults, rule 2 of oracle.md), and sets *write.
 */
static bool om_arm64_fault(uint64_t esr, bool *write)
{
	unsigned int ec = esr >> 26, dfsc = esr & 0x3f;

	if (ec != 0x24 && ec != 0x25)	/* data aborts */
		return false;
	*write = (esr >> 6) & 1;	/* WnR */
	return (dfsc >= 0x04 && dfsc <= 0x07) ||	/* translation */
	       (dfsc >= 0x0c && dfsc <= 0x0f);		/* permission */
}

/*
 * The tag of a fault from EL0, given the tag and TTBR1_EL1 read at the
 * handler's entry and TTBR1_EL1 at this vCPU's last fill from EL0. With
 * TCR_EL1.A1 set the ASID is TTBR1's. Under KPTI, EL0 runs on the
 * trampoline's tables with the user ASID (the kernel's, bit 0 set), and
 * the entry has already switched to swapper's tables and the kernel
 * ASID; without it TTBR1 never changes tables. So the tables differ
 * from those of the last fill from EL0 exactly when KPTI is on. Returns
 * false if no fill from EL0 has been seen: the tag is then unknown.
 */
static bool om_arm64_el0_tag(uint64_t tag, bool a1, uint64_t ttbr1,
			     uint64_t el0_ttbr1, uint64_t *el0_tag)
{
	const uint64_t baddr = 0x0000fffffffffffeULL;

	if (!el0_ttbr1)
		return false;
	*el0_tag = a1 && (ttbr1 & baddr) != (el0_ttbr1 & baddr) ? tag | 1 : tag;
	return true;
}

static bool om_riscv_fault(uint64_t scause, bool *write)
{
	*write = scause == 15;		/* store/AMO page fault */
	return scause == 13 || scause == 15;
}

static bool om_x86_fault(uint64_t error_code, bool *write)
{
	*write = (error_code >> 1) & 1;
	/* not a fetch (I), a reserved bit (RSVD), a key (PK) or SGX */
	return !(error_code & (1 << 4 | 1 << 3 | 1 << 5 | 1 << 15));
}

/* Calls, for the return site of the fault handler. */
static bool om_arm64_call(uint32_t insn, uint64_t pc, uint64_t *target)
{
	if ((insn & 0xfc000000) != 0x94000000)	/* BL */
		return false;
	*target = pc + ((int64_t)((uint64_t)(insn & 0x3ffffff) << 38) >> 36);
	return true;
}

/* jal ra, imm; or the jalr ra, imm(ra) of auipc ra, hi (*auipc_ra, else 0) */
static bool om_riscv_call(uint32_t insn, uint64_t pc, uint64_t *auipc_ra,
			  uint64_t *target)
{
	if ((insn & 0xfff) == 0x0ef) {		/* jal ra */
		int64_t imm = ((insn >> 31) & 1) << 20 | ((insn >> 12) & 0xff) << 12 |
			      ((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3ff) << 1;

		*target = pc + ((imm << 43) >> 43);
		return true;
	}
	if ((insn & 0xfff) == 0x097) {		/* auipc ra */
		*auipc_ra = pc + (uint64_t)(int64_t)(int32_t)(insn & 0xfffff000);
		return false;
	}
	if ((insn & 0xfffff) == 0x080e7 && *auipc_ra) {	/* jalr ra, imm(ra) */
		*target = *auipc_ra + ((int64_t)(int32_t)insn >> 20);
		*auipc_ra = 0;
		return true;
	}
	*auipc_ra = 0;
	return false;
}

static bool om_x86_call(const uint8_t *b, size_t n, uint64_t pc, uint64_t *target)
{
	if (n < 5 || b[0] != 0xe8)
		return false;
	*target = pc + 5 + (int64_t)(int32_t)(b[1] | b[2] << 8 | b[3] << 16 |
					     (uint32_t)b[4] << 24);
	return true;
}

/* Remove one slot and re-seat the run after it (linear probing). */
static void om_remove_slot(struct om_tlb *t, uint64_t i)
{
	uint64_t j = i;

	t->e[i].key = 0;
	t->used--;
	for (;;) {
		uint64_t home;

		j = (j + 1) & t->mask;
		if (!t->e[j].key)
			return;
		home = om_hash(t->e[j].key) & t->mask;
		/* move e[j] to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			t->e[i] = t->e[j];
			t->e[j].key = 0;
			i = j;
		}
	}
}

static inline uint64_t om_tag_of(uint64_t key)
{
	return ((key - 1) >> 48) & 0xffff;
}

static inline uint64_t om_vpn_of(uint64_t key)
{
	return (key - 1) & 0xffffffffffffULL;
}

/*
 * Invalidate the entries of tag (or OM_ALL_TAGS) whose page lies in
 * [vpn, vpn + npages) (npages OM_ALL_PAGES: every page). Returns how
 * many went.
 */
static uint64_t om_invalidate(struct om_tlb *t, uint64_t tag, uint64_t vpn,
			      uint64_t npages)
{
	uint64_t i, n = 0;

	if (tag != OM_ALL_TAGS && npages != OM_ALL_PAGES && npages <= 64) {
		uint64_t p;

		for (p = vpn; p < vpn + npages; p++) {
			struct om_entry *e = om_slot(t, om_key(tag, p));

			if (e->key) {
				om_remove_slot(t, e - t->e);
				n++;
			}
		}
		return n;
	}
	for (i = 0; i <= t->mask; i++) {
		uint64_t k = t->e[i].key;

		if (!k)
			continue;
		if (tag != OM_ALL_TAGS && om_tag_of(k) != (tag & 0xffff))
			continue;
		if (npages != OM_ALL_PAGES &&
		    (om_vpn_of(k) < vpn || om_vpn_of(k) - vpn >= npages))
			continue;
		om_remove_slot(t, i);
		n++;
		i--;	/* the slot may hold a re-seated entry now */
	}
	return n;
}

/*
 * An invalidation by address removes the entry of a block mapping that
 * contains the address (2 MiB: a PMD-level block, THP). The model keeps
 * 4 KiB entries and cannot tell a block from 512 pages, so an entry
 * whose physical page sits at the same offset in its 2 MiB as its
 * virtual page (which every page of a block does) goes with any
 * invalidation of its tag that touches its 2 MiB.
 */
static uint64_t om_invalidate_blocks(struct om_tlb *t, uint64_t tag,
				     uint64_t vpn, uint64_t npages)
{
	uint64_t n, i, first = vpn & ~511ULL, last = (vpn + npages - 1) | 511;

	n = om_invalidate(t, tag, vpn, npages);
	if (npages == OM_ALL_PAGES)
		return n;
	if (tag != OM_ALL_TAGS && last - first < 8 * 512) {
		for (i = first; i <= last; i++) {
			struct om_entry *e = om_slot(t, om_key(tag, i));

			if (e->key && !((e->ppn ^ i) & 511)) {
				om_remove_slot(t, e - t->e);
				n++;
			}
		}
		return n;
	}
	for (i = 0; i <= t->mask; i++) {
		uint64_t k = t->e[i].key, p = om_vpn_of(k);

		if (!k || (tag != OM_ALL_TAGS && om_tag_of(k) != (tag & 0xffff)))
			continue;
		if (p < first || p > last || ((t->e[i].ppn ^ p) & 511))
			continue;
		om_remove_slot(t, i);
		n++;
		i--;	/* the slot may hold a re-seated entry now */
	}
	return n;
}

static void om_note(struct om_tlb *t, const char *what)
{
	snprintf(t->history[t->hpos % OM_HISTORY], sizeof(t->history[0]), "%s", what);
	t->hpos++;
	t->invalidations++;
}

/*
 * One decoded invalidation: what it removes and where. scope: 0 the
 * issuing vCPU only, 1 every vCPU (arm64's inner-shareable forms).
 * kind OM_NONE: not an invalidation; OM_UNKNOWN: an invalidation form
 * the model does not know, which stops the run.
 */
enum om_kind { OM_NONE, OM_INVAL, OM_UNKNOWN };

struct om_inval {
	enum om_kind kind;
	int broadcast;
	uint64_t tag;		/* or OM_ALL_TAGS */
	uint64_t vpn;
	uint64_t npages;	/* or OM_ALL_PAGES */
	const char *name;
	bool leaf;		/* arm64 TTL says level 3: no block goes with it */
};

/* ---- arm64 ---- */

/*
 * TLBI <op>{, Xt} is SYS #op1, C8, Cm, #op2, Xt:
 * 1101 0101 0000 1 op1:3 1000 CRm:4 op2:3 Rt:5, and the nXS forms
 * (FEAT_XS) the same with C9. Returns the register number of Xt in *rt
 * (31: xzr) for the plugin to read.
 */
static bool om_arm64_is_tlbi(uint32_t insn, unsigned int *rt)
{
	if ((insn & 0xfff8e000) != 0xd5088000)
		return false;
	*rt = insn & 31;
	return true;
}

/* An MSR that writes TTBR0_EL1, TTBR1_EL1 or TCR_EL1 changes the tag. */
static bool om_arm64_writes_tag(uint32_t insn)
{
	/* MSR (register): 1101 0101 0001 o0 op1:3 CRn:4 CRm:4 op2:3 Rt */
	if ((insn & 0xfff00000) != 0xd5100000)
		return false;
	/* op0=3 op1=0 CRn=2 CRm=0: op2 0 TTBR0, 1 TTBR1, 2 TCR */
	return (insn & 0x000fffe0) == 0x00082000 ||
	       (insn & 0x000fffe0) == 0x00082020 ||
	       (insn & 0x000fffe0) == 0x00082040;
}

/*
 * Decode a TLBI at EL1 with operand xt. asid16: TCR_EL1.AS (16-bit
 * ASIDs); lpa2: TCR_EL1.DS (range BaseADDR in 64 KiB units with a 4 KiB
 * granule). 4 KiB pages only; other granules are unknown forms.
 */
static struct om_inval om_arm64_tlbi(uint32_t insn, uint64_t xt, bool asid16,
				     bool lpa2)
{
	/* by op2, for the local forms; the IS and OS forms add "is" */
	static const char *const va_name[8] = {
		"vmalle1", "vae1", "aside1", "vaae1", NULL, "vale1", NULL, "vaale1" };
	static const char *const range_name[8] = {
		NULL, "rvae1", NULL, "rvaae1", NULL, "rvale1", NULL, "rvaale1" };
	static char names[2][2][8][24];
	unsigned int op1 = (insn >> 16) & 7, crm = (insn >> 8) & 15;
	unsigned int op2 = (insn >> 5) & 7, tg, scale, num;
	struct om_inval r = { .kind = OM_UNKNOWN, .name = "tlbi (unknown form)" };
	uint64_t asid = (xt >> 48) & (asid16 ? 0xffff : 0xff);
	bool range = crm == 2 || crm == 5 || crm == 6;
	bool is = crm != 7 && crm != 6;
	const char *base = range ? range_name[op2] : va_name[op2];

	/* EL2/EL3 forms, CRm values of other operations, or no such op2 */
	if (op1 != 0 || !base || !(range || crm == 1 || crm == 3 || crm == 7))
		return r;
	if (!names[range][is][op2][0])
		snprintf(names[range][is][op2], sizeof(names[0][0][0]), "tlbi %s%s",
			 base, is ? "is" : "");
	r.name = names[range][is][op2];
	r.broadcast = is;
	/* op2 0: all; 2: one ASID; 3 and 7: every ASID; 1 and 5: one ASID */
	r.tag = op2 == 0 || op2 == 3 || op2 == 7 ? OM_ALL_TAGS : asid;
	if (op2 == 0 || op2 == 2) {
		r.npages = OM_ALL_PAGES;
	} else if (!range) {
		r.vpn = xt & 0xfffffffffffULL;
		r.npages = 1;
		/*
		 * FEAT_TTL: Xt[47:44] = TG:level. With TG=01 (4K) and level
		 * 3, only last-level entries need go: a block stays. (TTL=0,
		 * no hint, removes any level.)
		 */
		r.leaf = ((xt >> 44) & 0xf) == 0x7;
		/*
		 * A hint for a 16K or 64K granule under a 4K one is wrong,
		 * and "if an incorrect value of TTL is specified for the
		 * entry being invalidated, then no entries are required to
		 * be invalidated" (Arm ARM, FEAT_TTL): the model keeps
		 * everything, and the plugin says so.
		 */
		if (((xt >> 46) & 3) > 1) {
			r.kind = OM_NONE;
			r.name = "tlbi with a TTL hint for another granule (removes nothing)";
			return r;
		}
	} else {
		tg = (xt >> 46) & 3;
		scale = (xt >> 44) & 3;
		num = (xt >> 39) & 31;
		if (tg != 1)	/* the 4 KiB granule only */
			return r;
		r.vpn = (xt & ((1ULL << 37) - 1)) << (lpa2 ? 4 : 0);
		r.npages = (uint64_t)(num + 1) << (5 * scale + 1);
		r.leaf = ((xt >> 37) & 3) == 3;	/* TTL level 3 */
	}
	r.kind = OM_INVAL;
	return r;
}

/* ---- riscv ---- */

/* SFENCE.VMA rs1, rs2 and SINVAL.VMA: 0001001/0001011 rs2 rs1 000 00000 1110011 */
static bool om_riscv_is_fence(uint32_t insn, unsigned int *rs1,
			      unsigned int *rs2, const char **name)
{
	unsigned int f7 = insn >> 25;

	if ((insn & 0x7fff) != 0x0073)
		return false;
	if (f7 == 0x09)
		*name = "sfence.vma";
	else if (f7 == 0x0b)
		*name = "sinval.vma";
	else
		return false;
	*rs1 = (insn >> 15) & 31;
	*rs2 = (insn >> 20) & 31;
	return true;
}

/* HFENCE.VVMA/GVMA (0010001/0110001) and HINVAL: guest-of-guest forms. */
static bool om_riscv_is_unknown_fence(uint32_t insn)
{
	unsigned int f7 = insn >> 25;

	return (insn & 0x7fff) == 0x0073 &&
	       (f7 == 0x11 || f7 == 0x31 || f7 == 0x13 || f7 == 0x33);
}

/* Any CSR instruction on satp (0x180) changes the tag. */
static bool om_riscv_writes_tag(uint32_t insn)
{
	unsigned int f3 = (insn >> 12) & 7;

	return (insn & 0x7f) == 0x73 && f3 && f3 != 4 && (insn >> 20) == 0x180;
}

static struct om_inval om_riscv_fence(unsigned int rs1, unsigned int rs2,
				      uint64_t va, uint64_t asid,
				      unsigned int asid_bits, const char *name)
{
	struct om_inval r = { .kind = OM_INVAL, .name = name };

	r.tag = rs2 ? (asid & ((1ULL << asid_bits) - 1)) : OM_ALL_TAGS;
	if (rs1) {
		r.vpn = (va >> 12) & 0xfffffffffffULL;
		r.npages = 1;
	} else {
		r.npages = OM_ALL_PAGES;
	}
	return r;
}

/* ---- x86_64 ---- */

/*
 * The x86 instructions the model knows, decoded from their bytes:
 * INVLPG m (0F 01 /7), INVPCID r, m (66 0F 38 82 /r), MOV CRn, r
 * (0F 22 /r), and INVLPGB/TLBSYNC (0F 01 FE/FF), which TCG does not
 * implement and the model does not know. For a memory operand, the
 * ModRM addressing is returned for the plugin to compute from the
 * registers: base/index register numbers (-1: none, -2: RIP), scale
 * and displacement.
 */
enum om_x86_op { OMX_NONE, OMX_INVLPG, OMX_INVPCID, OMX_MOVCR, OMX_UNKNOWN };

struct om_x86 {
	enum om_x86_op op;
	int reg;	/* INVPCID: the type register; MOV CR: the CR number */
	int rm;		/* MOV CR: the source register */
	int base, index, scale;
	int64_t disp;
	unsigned int len;
};

static struct om_x86 om_x86_decode(const uint8_t *b, size_t n)
{
	struct om_x86 r = { .op = OMX_NONE, .base = -1, .index = -1 };
	size_t i = 0;
	unsigned int rex = 0, modrm, mod, rm;
	bool p66 = false;

	while (i < n && (b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3 ||
			 b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			 b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65 ||
			 b[i] == 0x67 || b[i] == 0xf0)) {
		p66 |= b[i] == 0x66;
		i++;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i + 2 >= n || b[i] != 0x0f)
		return r;
	i++;
	if (b[i] == 0x01 && i + 1 < n && (b[i + 1] == 0xfe || b[i + 1] == 0xff)) {
		r.op = OMX_UNKNOWN;	/* INVLPGB, TLBSYNC */
		return r;
	}
	if (b[i] == 0x01 && i + 1 < n && ((b[i + 1] >> 3) & 7) == 7 &&
	    (b[i + 1] >> 6) != 3) {
		r.op = OMX_INVLPG;
		i++;
	} else if (b[i] == 0x22) {
		r.op = OMX_MOVCR;
		i++;
	} else if (p66 && b[i] == 0x38 && i + 2 < n && b[i + 1] == 0x82) {
		r.op = OMX_INVPCID;
		i += 2;
	} else {
		return r;
	}
	if (i >= n) {
		r.op = OMX_UNKNOWN;
		return r;
	}
	modrm = b[i++];
	mod = modrm >> 6;
	rm = (modrm & 7) | (rex & 1) << 3;
	r.reg = ((modrm >> 3) & 7) | (rex & 4) << 1;
	if (r.op == OMX_MOVCR) {
		r.rm = rm;
		r.len = i;
		return r;
	}
	if (mod == 3) {
		r.op = OMX_UNKNOWN;
		return r;
	}
	if ((modrm & 7) == 4) {		/* SIB */
		unsigned int sib;

		if (i >= n) {
			r.op = OMX_UNKNOWN;
			return r;
		}
		sib = b[i++];
		r.scale = 1 << (sib >> 6);
		r.index = ((sib >> 3) & 7) | (rex & 2) << 2;
		if (r.index == 4)
			r.index = -1;
		r.base = (sib & 7) | (rex & 1) << 3;
		if ((sib & 7) == 5 && mod == 0)
			r.base = -1, mod = 2;	/* disp32, no base */
	} else if ((modrm & 7) == 5 && mod == 0) {
		r.base = -2;			/* RIP-relative */
		mod = 2;
	} else {
		r.base = rm;
	}
	if (mod == 1) {
		if (i >= n) {
			r.op = OMX_UNKNOWN;
			return r;
		}
		r.disp = (int8_t)b[i++];
	} else if (mod == 2) {
		if (i + 4 > n) {
			r.op = OMX_UNKNOWN;
			return r;
		}
		r.disp = (int32_t)(b[i] | b[i + 1] << 8 | b[i + 2] << 16 |
				   (uint32_t)b[i + 3] << 24);
		i += 4;
	}
	r.len = i;
	return r;
}

/* x86 TLB rules (SDM vol. 3A 4.10.4.1), for entries of the user half. */
static struct om_inval om_x86_invlpg(uint64_t va, uint64_t cur_pcid)
{
	struct om_inval r = { .kind = OM_INVAL, .name = "invlpg" };

	r.tag = cur_pcid;
	r.vpn = (va >> 12) & 0xfffffffffffULL;
	r.npages = 1;
	return r;
}

static struct om_inval om_x86_invpcid(uint64_t type, uint64_t pcid, uint64_t va)
{
	struct om_inval r = { .kind = OM_INVAL };

	switch (type) {
	case 0:
		r.name = "invpcid 0 (address)";
		r.tag = pcid & 0xfff;
		r.vpn = (va >> 12) & 0xfffffffffffULL;
		r.npages = 1;
		break;
	case 1:
		r.name = "invpcid 1 (context)";
		r.tag = pcid & 0xfff;
		r.npages = OM_ALL_PAGES;
		break;
	case 2: case 3:
		r.name = type == 2 ? "invpcid 2 (all)" : "invpcid 3 (all non-global)";
		r.tag = OM_ALL_TAGS;
		r.npages = OM_ALL_PAGES;
		break;
	default:
		r.kind = OM_UNKNOWN;
		r.name = "invpcid (unknown type)";
	}
	return r;
}

/*
 * MOV to CR3: with CR4.PCIDE, bit 63 clear flushes the new PCID's
 * non-global entries and bit 63 set flushes nothing; without PCIDE it
 * flushes every non-global entry (all are PCID 0).
 */
static struct om_inval om_x86_cr3(uint64_t val, bool pcide)
{
	struct om_inval r = { .kind = OM_INVAL, .npages = OM_ALL_PAGES };

	if (!pcide) {
		r.name = "mov cr3";
		r.tag = OM_ALL_TAGS;
	} else if (val >> 63) {
		r.kind = OM_NONE;
		r.name = "mov cr3 (noflush)";
	} else {
		r.name = "mov cr3";
		r.tag = val & 0xfff;
	}
	return r;
}

/* MOV to CR4 that changes PGE or PCIDE flushes everything. */
static struct om_inval om_x86_cr4(uint64_t old, uint64_t val)
{
	struct om_inval r = { .kind = OM_NONE, .name = "mov cr4" };
	uint64_t bits = 1ULL << 7 | 1ULL << 17;	/* PGE, PCIDE */

	if ((old ^ val) & bits) {
		r.kind = OM_INVAL;
		r.tag = OM_ALL_TAGS;
		r.npages = OM_ALL_PAGES;
	}
	return r;
}

#endif /* ORACLE_MODEL_H */
