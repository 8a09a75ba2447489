// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle: a QEMU 10 TCG plugin that keeps, for each vCPU, every
 * translation of the user half that the vCPU has used, tagged with the
 * ASID or PCID it was used under, removes an entry only when the vCPU
 * executes (or, for arm64's inner-shareable forms, any vCPU executes)
 * an invalidation that the architecture says removes it, and reports
 * an access that a retained entry would have translated to another
 * physical page. The model and the decoders are in oracle-model.h; the
 * rules and their sources in oracle.md.
 *
 *   -plugin oracle-plugin.so,arch=arm64|riscv|x86_64,outfile=F[,map=System.map]
 *           [,idcheck=N (read the identity every N accesses, default 4096)]
 *           [,trace=VA (print every fill and invalidation of one page)]
 *
 * Attribution: every callback names its vCPU, and every tag read comes
 * from the vCPU that runs the callback. Each tag read is paired with a
 * read of a per-CPU identity (TPIDR_EL1 on arm64, mhartid on riscv,
 * the kernel's GS base on x86_64); a vCPU index whose identity changes
 * once the guest runs user code stops the run, since entries would be
 * credited to the wrong TLB.
 */
#include <glib.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <qemu-plugin.h>

#include "oracle-model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

enum arch { ARM64, RISCV, X86 };

#define MAX_VCPUS	64
#define MAX_REPORTS	50	/* printed in full; all are counted */

struct tomb {
	uint64_t tag, vpn, npages, epoch;
};

struct vcpu {
	pthread_mutex_t lock;
	struct om_tlb tlb;
	bool dirty, mmu_on, frozen;
	uint64_t tag, id, cur_id, since_refresh;
	uint64_t ttbr1;		/* arm64: TTBR1_EL1 as last read */
	uint64_t el0_ttbr1;	/* arm64: TTBR1_EL1 at the last fill from user code */
	bool asid16, lpa2, pcide, a1;
	struct tomb tombs[MAX_VCPUS];	/* by issuer: one TLBI in flight each */
	uint64_t tomb_mask;
	uint64_t fills;
	uint64_t epoch;		/* callbacks run on this vCPU */
	struct {		/* a fault under a retained entry, being handled */
		bool on, write;
		uint64_t tag, vpn, va, task;
	} fault;
};

static enum arch arch;
static struct vcpu vcpus[MAX_VCPUS];
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t reports, fills_total, id_checks;
static uint64_t faults_seen, faults_held, faults_kept;
static uint64_t refresh_every = 4096;	/* accesses between identity checks */
static uint64_t trace_vpn = UINT64_MAX, seq;	/* trace=VA: one page's history */

/* register handles, by name */
static struct qemu_plugin_register *h_gpr[32], *h_tag[3], *h_id, *h_id2;
static pthread_key_t buf_key;

/* the page-fault handler, and the places its callers resume at */
static const char *handler_name;
static uint64_t handler_pc;
static GHashTable *return_sites;
static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qemu_plugin_register *h_sp, *h_fault[2];

/* System.map, text symbols, sorted */
struct sym {
	uint64_t addr;
	char *name;
};
static struct sym *syms;
static size_t nsyms;

static void die(const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&out_lock);
	if (out) {
		fprintf(out, "oracle: STOP %s\n", msg);
		fflush(out);
	}
	pthread_mutex_unlock(&out_lock);
	fprintf(stderr, "oracle: STOP %s\n", msg);
	exit(3);
}

static GByteArray *buf(void)
{
	GByteArray *b = pthread_getspecific(buf_key);

	if (!b) {
		b = g_byte_array_new();
		pthread_setspecific(buf_key, b);
	}
	return b;
}

static uint64_t rd(struct qemu_plugin_register *h)
{
	GByteArray *b = buf();
	uint64_t v = 0;
	int n;

	if (!h)
		return 0;
	g_byte_array_set_size(b, 0);
	n = qemu_plugin_read_register(h, b);
	if (n <= 0)
		die("cannot read a register (%d)", n);
	memcpy(&v, b->data, n < 8 ? n : 8);	/* little-endian targets */
	return v;
}

static int symcmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_map(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], type, name[400];
	unsigned long long a;
	size_t cap = 0;

	if (!f)
		die("cannot open map=%s", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &a, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (handler_name && !strcmp(name, handler_name))
			handler_pc = a;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				die("out of memory reading %s", path);
		}
		syms[nsyms].addr = a;
		syms[nsyms++].name = strdup(name);
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), symcmp);
}

static void symbolize(uint64_t pc, char *s, size_t len)
{
	size_t lo = 0, hi = nsyms;

	if ((int64_t)pc >= 0) {
		snprintf(s, len, "%#" PRIx64 " (user)", pc);
		return;
	}
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (nsyms && syms[lo].addr <= pc)
		snprintf(s, len, "%#" PRIx64 " %s+%#" PRIx64, pc, syms[lo].name,
			 pc - syms[lo].addr);
	else
		snprintf(s, len, "%#" PRIx64, pc);
}

static const char *arch_name(void)
{
	return arch == ARM64 ? "arm64" : arch == RISCV ? "riscv" : "x86_64";
}

/*
 * Read the vCPU's tag and its per-CPU identity.
 */
static void refresh(unsigned int idx, struct vcpu *v)
{
	uint64_t id;

	switch (arch) {
	case ARM64: {
		uint64_t tcr = rd(h_tag[2]);
		uint64_t ttbr = rd(h_tag[(tcr >> 22) & 1]);	/* TCR_EL1.A1 */

		if (((tcr >> 14) & 3) != 0 && rd(h_tag[0]))
			die("TCR_EL1.TG0 is not 4 KiB: the model keeps 4 KiB pages only");
		v->asid16 = (tcr >> 36) & 1;
		v->lpa2 = (tcr >> 59) & 1;
		v->tag = (ttbr >> 48) & (v->asid16 ? 0xffff : 0xff);
		v->ttbr1 = rd(h_tag[1]);
		v->a1 = (tcr >> 22) & 1;
		v->mmu_on = v->ttbr1 != 0;
		id = rd(h_id);
		break;
	}
	case RISCV: {
		uint64_t satp = rd(h_tag[0]);

		v->tag = (satp >> 44) & 0xffff;
		v->mmu_on = (satp >> 60) != 0;
		id = rd(h_id);
		break;
	}
	default: {
		uint64_t cr3 = rd(h_tag[0]), cr4 = rd(h_tag[1]), gs;

		v->pcide = (cr4 >> 17) & 1;
		v->tag = v->pcide ? cr3 & 0xfff : 0;
		v->mmu_on = (rd(h_tag[2]) >> 31) & 1;	/* CR0.PG */
		gs = rd(h_id);
		id = (int64_t)gs < 0 ? gs : rd(h_id2);
		break;
	}
	}
	/*
	 * riscv's mhartid is QEMU's CPU index. TPIDR_EL1 and the kernel's
	 * GS base are 0 until a CPU sets its per-CPU base (and again after
	 * a hot-unplugged CPU is reset), and the boot CPU's changes once
	 * during boot: the identity is learned until the vCPU first runs
	 * user code with it set, and checked whenever it is set after that.
	 */
	if (arch == RISCV) {
		if (id != idx)
			die("vCPU %u reads mhartid %#" PRIx64
			    ": callbacks are credited to the wrong vCPU", idx, id);
	} else if (id && !v->frozen) {
		v->id = id;
	} else if (id && id != v->id) {
		die("vCPU %u: its per-CPU identity changed from %#" PRIx64
		    " to %#" PRIx64 ": callbacks are credited to the wrong vCPU",
		    idx, v->id, id);
	}
	v->cur_id = id;
	if (id && (arch == RISCV || v->frozen))
		__atomic_add_fetch(&id_checks, 1, __ATOMIC_RELAXED);
	v->dirty = false;
	v->since_refresh = 0;
}

static void report(unsigned int idx, struct vcpu *v, uint64_t tag, uint64_t va,
		   uint64_t old, uint64_t new, uint64_t pc, uint64_t fill_pc,
		   bool write)
{
	char s1[160], s2[160];
	unsigned int i;

	if (__atomic_add_fetch(&reports, 1, __ATOMIC_RELAXED) > MAX_REPORTS)
		return;
	symbolize(pc, s1, sizeof(s1));
	symbolize(fill_pc, s2, sizeof(s2));
	pthread_mutex_lock(&out_lock);
	fprintf(out, "oracle: STALE vcpu %u (id %#" PRIx64 ") tag %#" PRIx64
		" va %#" PRIx64 " %s: retained page %#" PRIx64 ", tables give %#"
		PRIx64 "\n", idx, v->id, tag, va, write ? "write" : "read",
		old << 12, new << 12);
	fprintf(out, "oracle:   at %s; filled at %s\n", s1, s2);
	fprintf(out, "oracle:   last invalidations on vcpu %u:", idx);
	for (i = v->tlb.hpos > OM_HISTORY ? v->tlb.hpos - OM_HISTORY : 0;
	     i < v->tlb.hpos; i++)
		fprintf(out, " [%s]", v->tlb.history[i % OM_HISTORY]);
	fprintf(out, "\n");
	fflush(out);
	pthread_mutex_unlock(&out_lock);
}

static void vcpu_mem(unsigned int idx, qemu_plugin_meminfo_t info,
		     uint64_t va, void *udata)
{
	struct vcpu *v = &vcpus[idx];
	struct qemu_plugin_hwaddr *hw;
	uint64_t vpn, ppn, old_ppn, old_pc;
	unsigned int i;
	bool skip = false;

	__atomic_store_n(&v->epoch, v->epoch + 1, __ATOMIC_RELAXED);
	if (arch == ARM64) {
		/* TBI: the top byte is a tag, bit 55 picks the half */
		if ((va >> 55) & 1)
			return;
		va &= (1ULL << 56) - 1;
	} else if ((int64_t)va < 0) {
		return;			/* the kernel half */
	}
	if (v->dirty || ++v->since_refresh >= refresh_every)
		refresh(idx, v);
	if (!v->mmu_on)
		return;
	hw = qemu_plugin_get_hwaddr(info, va);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	if ((int64_t)(uintptr_t)udata >= 0) {
		v->el0_ttbr1 = v->ttbr1;
		if (v->cur_id)
			v->frozen = true;	/* user code runs with it set */
	}
	vpn = (va >> 12) & 0xfffffffffffULL;
	ppn = qemu_plugin_hwaddr_phys_addr(hw) >> 12;

	pthread_mutex_lock(&v->lock);
	/*
	 * A broadcast TLBI (arm64's IS forms) is QEMU's synced flush: it
	 * queues the flush on the other vCPUs and runs the issuer's own
	 * part once every vCPU has left its execution loop; a vCPU does its
	 * queued flush before it runs guest code again. Until the issuer
	 * runs its next callback, another vCPU may still be using the old
	 * translation, as a CPU may before the TLBI completes. Such a fill
	 * does not bring back an entry that the TLBI removed.
	 */
	for (i = 0; v->tomb_mask && i < MAX_VCPUS; i++) {
		struct tomb *t = &v->tombs[i];

		if (!(v->tomb_mask & 1ULL << i))
			continue;
		if (__atomic_load_n(&vcpus[i].epoch, __ATOMIC_RELAXED) != t->epoch) {
			v->tomb_mask &= ~(1ULL << i);
			continue;
		}
		if ((t->tag == OM_ALL_TAGS || t->tag == v->tag) &&
		    (t->npages == OM_ALL_PAGES ||
		     (vpn >= t->vpn && vpn - t->vpn < t->npages)) &&
		    !om_find(&v->tlb, v->tag, vpn))
			skip = true;
	}
	if (vpn == trace_vpn) {
		struct om_entry *e = om_find(&v->tlb, v->tag, vpn);

		if (!e || e->ppn != ppn || skip)
			fprintf(out, "oracle: trace %" PRIu64 " vcpu %u tag %#" PRIx64
				" %s %#" PRIx64 " pc %#" PRIx64 "%s\n",
				__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), idx,
				v->tag, qemu_plugin_mem_is_store(info) ? "W" : "R",
				ppn << 12, (uint64_t)(uintptr_t)udata,
				skip ? " (skipped: broadcast TLBI in flight)" : "");
	}
	if (!skip) {
		v->fills++;
		if (om_fill(&v->tlb, v->tag, vpn, ppn, (uint64_t)(uintptr_t)udata,
			    qemu_plugin_mem_is_store(info), &old_ppn, &old_pc))
			report(idx, v, v->tag, va, old_ppn, ppn, (uint64_t)(uintptr_t)udata,
			       old_pc, qemu_plugin_mem_is_store(info));
	}
	pthread_mutex_unlock(&v->lock);
}

static void apply(unsigned int idx, struct om_inval *r, uint64_t pc)
{
	char what[96];
	unsigned int i, n = qemu_plugin_num_vcpus();

	__atomic_add_fetch(&vcpus[idx].epoch, 1, __ATOMIC_RELAXED);

	if (r->kind == OM_UNKNOWN) {
		char s[160];

		symbolize(pc, s, sizeof(s));
		die("vCPU %u executed %s at %s, which the model does not know",
		    idx, r->name, s);
	}
	if (r->kind == OM_NONE) {
		static uint64_t said;	/* one note is enough */

		if (r->name && strstr(r->name, "TTL") &&
		    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
			char s[160];

			symbolize(pc, s, sizeof(s));
			pthread_mutex_lock(&out_lock);
			fprintf(out, "oracle: NOTE vCPU %u at %s: %s\n", idx, s, r->name);
			pthread_mutex_unlock(&out_lock);
		}
		return;
	}
	if (r->tag == OM_ALL_TAGS)
		snprintf(what, sizeof(what), "%s all", r->name);
	else if (r->npages == OM_ALL_PAGES)
		snprintf(what, sizeof(what), "%s tag %#" PRIx64, r->name, r->tag);
	else
		snprintf(what, sizeof(what), "%s tag %#" PRIx64 " %#" PRIx64 "+%" PRIu64,
			 r->name, r->tag, r->vpn << 12, r->npages);
	if (trace_vpn != UINT64_MAX &&
	    (r->npages == OM_ALL_PAGES ||
	     (trace_vpn >= r->vpn && trace_vpn - r->vpn < r->npages)))
		fprintf(out, "oracle: trace %" PRIu64 " vcpu %u %s pc %#" PRIx64 "\n",
			__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), idx, what, pc);
	for (i = 0; i < n && i < MAX_VCPUS; i++) {
		struct vcpu *v = &vcpus[i];

		if ((!r->broadcast && i != idx) || !v->tlb.e)
			continue;	/* (or a vCPU whose init has not run yet) */
		pthread_mutex_lock(&v->lock);
		if (r->leaf)
			om_invalidate(&v->tlb, r->tag, r->vpn, r->npages);
		else
			om_invalidate_blocks(&v->tlb, r->tag, r->vpn, r->npages);
		om_note(&v->tlb, what);
		if (r->broadcast && i != idx) {
			struct tomb *t = &v->tombs[idx];

			/* the span the block rule may have emptied */
			t->tag = r->tag;
			t->vpn = r->vpn & ~511ULL;
			t->npages = r->npages == OM_ALL_PAGES ? OM_ALL_PAGES :
				    ((r->vpn + r->npages - 1) | 511) - t->vpn + 1;
			t->epoch = vcpus[idx].epoch;
			v->tomb_mask |= 1ULL << idx;
		}
		pthread_mutex_unlock(&v->lock);
	}
}

/*
 * The page-fault handler's entry: a load or store to the user half
 * failed to translate (or a store hit a read-only page). If this vCPU
 * keeps an entry that would have let it through, remember it, and count
 * it again if the entry is still there when the handler returns to the
 * same task on the same vCPU. Neither is a report: the CPU that changed
 * the tables may not have flushed yet (oracle.md, "A flush still to
 * come"). A retry that the tables now send to another page is one, as
 * every fill is.
 */
static void fault_entry(unsigned int idx, void *udata)
{
	struct vcpu *v = &vcpus[idx];
	uint64_t va, how, tag;
	bool write = false, counts;

	__atomic_add_fetch(&v->epoch, 1, __ATOMIC_RELAXED);
	va = rd(h_fault[0]);
	how = rd(h_fault[1]);
	counts = arch == ARM64 ? om_arm64_fault(how, &write) :
		 arch == RISCV ? om_riscv_fault(how, &write) :
				 om_x86_fault(how, &write);
	if (arch == ARM64) {
		if (!counts || ((va >> 55) & 1))
			return;
		va &= (1ULL << 56) - 1;
	} else if (!counts || (int64_t)va < 0) {
		return;
	}
	/* a new fault replaces one still being handled: its check is lost */
	v->fault.on = false;
	__atomic_add_fetch(&faults_seen, 1, __ATOMIC_RELAXED);
	refresh(idx, v);
	/* a fault from EL0 (EC 0x24) was a translation under the user tag */
	tag = v->tag;
	if (arch == ARM64 && how >> 26 == 0x24 &&
	    !om_arm64_el0_tag(v->tag, v->a1, v->ttbr1, v->el0_ttbr1, &tag))
		return;
	pthread_mutex_lock(&v->lock);
	if (((va >> 12) & 0xfffffffffffULL) == trace_vpn)
		fprintf(out, "oracle: trace %" PRIu64 " vcpu %u fault %s tag %#" PRIx64
			" (now %#" PRIx64 ") sp %#" PRIx64 " esr %#" PRIx64 " retained %d\n",
			__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), idx,
			write ? "W" : "R", tag, v->tag, rd(h_sp), how,
			!!om_fault_would_translate(&v->tlb, tag,
						   (va >> 12) & 0xfffffffffffULL, write));
	if (om_fault_would_translate(&v->tlb, tag, (va >> 12) & 0xfffffffffffULL,
				     write)) {
		__atomic_add_fetch(&faults_held, 1, __ATOMIC_RELAXED);
		v->fault.on = true;
		v->fault.write = write;
		v->fault.tag = tag;
		v->fault.va = va;
		v->fault.vpn = (va >> 12) & 0xfffffffffffULL;
		v->fault.task = rd(h_sp) >> 14;	/* the task's kernel stack */
	}
	pthread_mutex_unlock(&v->lock);
}

static void fault_return(unsigned int idx, void *udata)
{
	struct vcpu *v = &vcpus[idx];
	struct om_entry *e;

	__atomic_add_fetch(&v->epoch, 1, __ATOMIC_RELAXED);
	if (!v->fault.on || rd(h_sp) >> 14 != v->fault.task)
		return;
	v->fault.on = false;
	pthread_mutex_lock(&v->lock);
	e = om_fault_would_translate(&v->tlb, v->fault.tag, v->fault.vpn,
				     v->fault.write);
	if (v->fault.vpn == trace_vpn)
		fprintf(out, "oracle: trace %" PRIu64 " vcpu %u fault return tag %#" PRIx64
			" (now %#" PRIx64 ") kept %d\n",
			__atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), idx,
			v->fault.tag, v->tag, !!e);
	if (e)
		__atomic_add_fetch(&faults_kept, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&v->lock);
}

static void add_return_site(uint64_t pc)
{
	pthread_mutex_lock(&sites_lock);
	g_hash_table_add(return_sites, g_memdup2(&pc, sizeof(pc)));
	pthread_mutex_unlock(&sites_lock);
}

static bool is_return_site(uint64_t pc)
{
	bool r;

	pthread_mutex_lock(&sites_lock);
	r = g_hash_table_contains(return_sites, &pc);
	pthread_mutex_unlock(&sites_lock);
	return r;
}

/* per-instruction data for the invalidation callbacks */
struct insn {
	uint64_t pc;
	uint32_t word;
	struct om_x86 x;
	unsigned int size;
};

static void mark_dirty(unsigned int idx, void *udata)
{
	__atomic_add_fetch(&vcpus[idx].epoch, 1, __ATOMIC_RELAXED);
	vcpus[idx].dirty = true;
}

static void unknown_insn(unsigned int idx, void *udata)
{
	struct insn *in = udata;
	struct om_inval r = { .kind = OM_UNKNOWN, .name = "an invalidation" };

	apply(idx, &r, in->pc);
}

static void arm64_tlbi(unsigned int idx, void *udata)
{
	struct insn *in = udata;
	struct vcpu *v = &vcpus[idx];
	unsigned int rt = in->word & 31;
	uint64_t xt = rt == 31 ? 0 : rd(h_gpr[rt]);
	struct om_inval r;

	refresh(idx, v);
	r = om_arm64_tlbi(in->word, xt, v->asid16, v->lpa2);
	apply(idx, &r, in->pc);
}

static void riscv_fence(unsigned int idx, void *udata)
{
	struct insn *in = udata;
	struct vcpu *v = &vcpus[idx];
	unsigned int rs1 = 0, rs2 = 0;
	const char *name = "sfence.vma";
	struct om_inval r;

	om_riscv_is_fence(in->word, &rs1, &rs2, &name);
	r = om_riscv_fence(rs1, rs2, rs1 ? rd(h_gpr[rs1]) : 0,
			   rs2 ? rd(h_gpr[rs2]) : 0, 16, name);
	apply(idx, &r, in->pc);
	v->dirty = true;
}

static uint64_t x86_ea(struct insn *in)
{
	uint64_t a = in->x.disp;

	if (in->x.base == -2)
		a += in->pc + in->size;
	else if (in->x.base >= 0)
		a += rd(h_gpr[in->x.base]);
	if (in->x.index >= 0)
		a += rd(h_gpr[in->x.index]) * in->x.scale;
	return a;
}

static void x86_insn(unsigned int idx, void *udata)
{
	struct insn *in = udata;
	struct vcpu *v = &vcpus[idx];
	struct om_inval r = { .kind = OM_NONE };

	refresh(idx, v);
	switch (in->x.op) {
	case OMX_INVLPG:
		r = om_x86_invlpg(x86_ea(in), v->tag);
		break;
	case OMX_INVPCID: {
		GByteArray *b = g_byte_array_new();
		uint64_t d[2];

		if (!qemu_plugin_read_memory_vaddr(x86_ea(in), b, 16))
			die("cannot read an INVPCID descriptor at %#" PRIx64, x86_ea(in));
		memcpy(d, b->data, 16);
		g_byte_array_free(b, TRUE);
		r = om_x86_invpcid(rd(h_gpr[in->x.reg]), d[0], d[1]);
		break;
	}
	case OMX_MOVCR: {
		uint64_t val = rd(h_gpr[in->x.rm]);

		if (in->x.reg == 3)
			r = om_x86_cr3(val, v->pcide);
		else if (in->x.reg == 4)
			r = om_x86_cr4(rd(h_tag[1]), val);
		break;
	}
	default:
		break;
	}
	apply(idx, &r, in->pc);
	v->dirty = true;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t tbva = qemu_plugin_tb_vaddr(tb);
	/* OpenSBI runs in M-mode from 0x80000000, untranslated */
	bool firmware = arch == RISCV && tbva >= 0x80000000ULL &&
			tbva < 0x80200000ULL;
	uint64_t auipc_ra = 0;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[16];
		size_t len = qemu_plugin_insn_data(qi, bytes, sizeof(bytes));
		uint64_t pc = qemu_plugin_insn_vaddr(qi);
		struct insn *in;
		uint32_t w = 0;
		struct om_x86 x = { .op = OMX_NONE };
		void (*cb)(unsigned int, void *) = NULL;
		enum qemu_plugin_cb_flags fl = QEMU_PLUGIN_CB_R_REGS;

		uint64_t target = 0;
		bool call = false;

		if (arch == ARM64 && len == 4)
			call = om_arm64_call(*(uint32_t *)bytes, pc, &target);
		else if (arch == RISCV && len == 4)
			call = om_riscv_call(*(uint32_t *)bytes, pc, &auipc_ra, &target);
		else if (arch == X86)
			call = om_x86_call(bytes, len, pc, &target);
		if (call && handler_pc && target == handler_pc)
			add_return_site(pc + qemu_plugin_insn_size(qi));
		if (handler_pc && pc == handler_pc)
			qemu_plugin_register_vcpu_insn_exec_cb(qi, fault_entry,
				QEMU_PLUGIN_CB_R_REGS, NULL);
		if (handler_pc && is_return_site(pc))
			qemu_plugin_register_vcpu_insn_exec_cb(qi, fault_return,
				QEMU_PLUGIN_CB_R_REGS, (void *)(uintptr_t)pc);
		if (!firmware)
			qemu_plugin_register_vcpu_mem_cb(qi, vcpu_mem,
				QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_MEM_RW,
				(void *)(uintptr_t)pc);
		if (arch == ARM64 && len == 4) {
			unsigned int rt;

			memcpy(&w, bytes, 4);
			if (om_arm64_is_tlbi(w, &rt))
				cb = arm64_tlbi;
			else if (om_arm64_writes_tag(w))
				cb = mark_dirty, fl = QEMU_PLUGIN_CB_NO_REGS;
		} else if (arch == RISCV && len == 4) {
			unsigned int a, b;
			const char *name;

			memcpy(&w, bytes, 4);
			if (om_riscv_is_fence(w, &a, &b, &name))
				cb = riscv_fence;
			else if (om_riscv_is_unknown_fence(w))
				cb = unknown_insn;
			else if (om_riscv_writes_tag(w))
				cb = mark_dirty, fl = QEMU_PLUGIN_CB_NO_REGS;
		} else if (arch == X86) {
			x = om_x86_decode(bytes, len);
			if (x.op == OMX_UNKNOWN)
				cb = unknown_insn;
			else if (x.op != OMX_NONE)
				cb = x86_insn;
		}
		if (cb) {
			in = g_new0(struct insn, 1);
			in->word = w;
			in->x = x;
			in->pc = pc;
			in->size = qemu_plugin_insn_size(qi);
			qemu_plugin_register_vcpu_insn_exec_cb(qi, cb, fl, in);
		}
	}
}

static struct qemu_plugin_register *find_reg(GArray *regs, const char *name)
{
	unsigned int i;

	for (i = 0; i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, name))
			return d->handle;
	}
	die("QEMU offers no register %s to plugins", name);
	return NULL;
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int idx)
{
	static const char *const rv[32] = {
		"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1",
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3",
		"s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
		"t5", "t6" };
	static const char *const x86[16] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
	GArray *regs;
	unsigned int i;
	char name[8];

	if (idx >= MAX_VCPUS)
		die("more than %d vCPUs", MAX_VCPUS);
	pthread_mutex_init(&vcpus[idx].lock, NULL);
	om_init(&vcpus[idx].tlb);
	vcpus[idx].dirty = true;
	if (idx)
		return;
	regs = qemu_plugin_get_registers();
	switch (arch) {
	case ARM64:
		for (i = 0; i < 31; i++) {
			snprintf(name, sizeof(name), "x%u", i);
			h_gpr[i] = find_reg(regs, name);
		}
		h_tag[0] = find_reg(regs, "TTBR0_EL1");
		h_tag[1] = find_reg(regs, "TTBR1_EL1");
		h_tag[2] = find_reg(regs, "TCR_EL1");
		h_id = find_reg(regs, "TPIDR_EL1");
		h_sp = find_reg(regs, "sp");
		h_fault[0] = h_gpr[0];	/* do_mem_abort(far, esr, regs) */
		h_fault[1] = h_gpr[1];
		break;
	case RISCV:
		for (i = 1; i < 32; i++)
			h_gpr[i] = find_reg(regs, rv[i]);
		h_tag[0] = find_reg(regs, "satp");
		h_id = find_reg(regs, "mhartid");
		h_sp = find_reg(regs, "sp");
		h_fault[0] = find_reg(regs, "stval");
		h_fault[1] = find_reg(regs, "scause");
		break;
	case X86:
		for (i = 0; i < 16; i++)
			h_gpr[i] = find_reg(regs, x86[i]);
		h_tag[0] = find_reg(regs, "cr3");
		h_tag[1] = find_reg(regs, "cr4");
		h_tag[2] = find_reg(regs, "cr0");
		h_id = find_reg(regs, "gs_base");
		h_id2 = find_reg(regs, "k_gs_base");
		h_sp = find_reg(regs, "rsp");
		h_fault[0] = find_reg(regs, "cr2");
		h_fault[1] = h_gpr[6];	/* exc_page_fault(regs, error_code) */
		break;
	}
	g_array_free(regs, TRUE);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	unsigned int i, n = qemu_plugin_num_vcpus();
	uint64_t inv = 0, entries = 0;

	for (i = 0; i < n && i < MAX_VCPUS; i++) {
		fills_total += vcpus[i].fills;
		inv += vcpus[i].tlb.invalidations;
		entries += vcpus[i].tlb.used;
	}
	if (handler_pc && fills_total && !faults_seen)
		fprintf(out, "oracle: STOP no user page fault reached %s at %#" PRIx64
			": the kernel does not run where System.map says (boot with nokaslr)\n",
			handler_name, handler_pc);
	fprintf(out, "oracle: done (%s, %u vCPUs): %" PRIu64 " reports, %" PRIu64
		" fills, %" PRIu64 " invalidations, %" PRIu64 " entries kept, %"
		PRIu64 " identity checks, %" PRIu64 " user faults (%" PRIu64
		" under a retained entry, %" PRIu64 " still there at the return)\n",
		arch_name(), n, reports, fills_total, inv, entries, id_checks,
		faults_seen, faults_held, faults_kept);
	fflush(out);	/* not closed: a vCPU may still be finishing a callback */
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *outfile = NULL, *map = NULL;
	int i;

	out = stderr;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "arch=", 5)) {
			if (!strcmp(argv[i] + 5, "arm64"))
				arch = ARM64;
			else if (!strcmp(argv[i] + 5, "riscv"))
				arch = RISCV;
			else if (!strcmp(argv[i] + 5, "x86_64"))
				arch = X86;
			else
				die("unknown %s; use arm64, riscv or x86_64", argv[i]);
		} else if (!strncmp(argv[i], "outfile=", 8)) {
			outfile = argv[i] + 8;
		} else if (!strncmp(argv[i], "idcheck=", 8)) {
			refresh_every = strtoull(argv[i] + 8, NULL, 0);
			if (!refresh_every)
				die("idcheck= takes a number of accesses above 0");
		} else if (!strncmp(argv[i], "trace=", 6)) {
			trace_vpn = strtoull(argv[i] + 6, NULL, 0) >> 12;
		} else if (!strncmp(argv[i], "map=", 4)) {
			map = argv[i] + 4;
		} else {
			die("unknown argument %s (arch=, outfile=, map=, idcheck=, trace=)", argv[i]);
		}
	}
	if (!info->system_emulation)
		die("the oracle needs system emulation");
	handler_name = arch == ARM64 ? "do_mem_abort" :
		       arch == RISCV ? "handle_page_fault" : "exc_page_fault";
	return_sites = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	if (map) {
		load_map(map);
		if (!handler_pc)
			die("%s has no %s: cannot watch page faults", map, handler_name);
	}
	if (outfile) {
		out = fopen(outfile, "w");
		if (!out)
			die("cannot write %s", outfile);
	}
	pthread_key_create(&buf_key, NULL);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
