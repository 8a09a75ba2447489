// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64's description of itself to the TLB flush policy core, and the
 * IPI flush method.
 *
 * See Documentation/mm/tlb_policy.rst for the boot parameters and the
 * debugfs files this makes available.
 */

#include <linux/cpufeature.h>
#include <linux/init.h>
#include <linux/mmu_context.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tlb_policy.h>
#include <asm/tlbflush.h>

/*
 * tlbi_method=ipi: the CPUs that may hold entries of a user address space
 * are interrupted, and each invalidates its own TLB with non-shareable
 * TLBIs and waits for them with DSB NSH before it answers. The caller
 * waits for every answer, so the flush is complete when the call returns.
 * User flushes reach the CPUs in mm_tlb_cpumask(), which
 * mm_note_active_cpu() keeps up to date. Kernel flushes stay broadcast:
 * they may come from softirq context (KFENCE, DEBUG_PAGEALLOC) where an
 * IPI cannot be waited for, and a CPU coming online already walks the
 * kernel tables before it is in cpu_online_mask.
 *
 * An offline CPU keeps its bit and on_each_cpu_mask() skips it. That is
 * safe: a dying CPU runs no user code and no uaccess after it left
 * cpu_online_mask, and __cpu_setup() invalidates its whole TLB before it
 * comes back. When it does, its bit may already be set, so switching to
 * the mm issues no DSB there; but it only runs a user task after
 * set_cpu_online() and after the DSB ISH of __switch_to(), when its
 * hotplug thread first runs. A flusher that found it offline stored the
 * PTE and completed it with DSB ISHST before it read cpu_online_mask, so
 * the CPU's first walk of the mm sees the new entry.
 *
 * GUP-fast walks user page tables with interrupts disabled, but does not
 * rely on that to hold off a TLB flush here: arm64 frees page tables
 * through RCU (MMU_GATHER_RCU_TABLE_FREE), and tlb_remove_table_sync_one()
 * interrupts every CPU whatever the method, so this method changes nothing
 * for it.
 */
struct tlb_ipi_args {
	unsigned long asid;
	unsigned long start, pages, stride;	/* or TLBI_IPI_WHOLE_ASID */
	bool last_level;
	int tlb_level;
};

static void ipi_flush_user(void *info)
{
	const struct tlb_ipi_args *a = info;

	if (a->pages == TLBI_IPI_WHOLE_ASID)
		__tlbi_asid_local(a->asid);
	else if (a->last_level)
		__flush_s1_tlb_range_op(vale1, a->start, a->pages, a->stride,
					a->asid, a->tlb_level);
	else
		__flush_s1_tlb_range_op(vae1, a->start, a->pages, a->stride,
					a->asid, a->tlb_level);
	__tlbi_sync_s1nsh();
}

/*
 * Called with preemption disabled and interrupts enabled, in task context,
 * after the DSB ISHST of __tlb_flush_reach() completed the page-table
 * update.
 * @pages is TLBI_IPI_WHOLE_ASID for the whole address space; an empty range
 * (@pages 0) has nothing to invalidate and interrupts no CPU.
 */
void __flush_tlb_user_ipi(struct mm_struct *mm, unsigned long start,
			  unsigned long pages, unsigned long stride,
			  bool last_level, int tlb_level)
{
	struct tlb_ipi_args args = {
		.asid = ASID(mm),
		.start = start,
		.pages = pages,
		.stride = stride,
		.last_level = last_level,
		.tlb_level = tlb_level,
	};

	if (!pages)
		return;
	on_each_cpu_mask(mm_tlb_cpumask(mm), ipi_flush_user, &args, true);
}

static void ipi_flush_all_local(void *info)
{
	__tlbi(vmalle1);
	__tlbi_sync_s1nsh();
}

/*
 * The end of a batched unmap with tlbi_method=ipi: the masks were read
 * after the PTEs were cleared, after a DSB ISHST, and one of them named
 * another CPU. Every online CPU invalidates its whole TLB: an online CPU
 * that the masks did not name has nothing to invalidate, and one that
 * comes online after the read of cpu_online_mask walks the cleared PTEs.
 * When an IPI cannot be waited for here, broadcast instead;
 * arch_tlbbatch_flush() completes it.
 */
void __flush_tlb_batch_ipi(struct arch_tlbflush_unmap_batch *batch)
{
	/*
	 * Each mm added was counted as an ipi flush, as the other methods
	 * count one flush per mm added; a fallback is not counted again.
	 */
	if (irqs_disabled() || !in_task()) {
		dsb(ishst);
		__tlbi(vmalle1is);
	} else {
		on_each_cpu(ipi_flush_all_local, NULL, true);
	}
	batch->ipi = false;
}

/*
 * Record a flush for tlb_policy_note(): called by __tlb_flush_note() while
 * tlb_policy_observed(). The reasons come with @why, those of the reach
 * from tlb_policy_reach(); the operations and the CPUs reached are
 * worked out here, out of line.
 */
void __tlb_flush_record(struct mm_struct *mm, unsigned long start,
			unsigned long pages, unsigned long stride,
			enum tlb_flush_reach reach, unsigned int why)
{
	struct tlb_policy_flush f = {
		.mm = mm, .start = start, .pages = pages, .stride = stride,
		.reach = reach, .why = why,
	};

	if (pages == TLB_POLICY_PAGES_ALL || (why & TLB_WHY_MAX_OPS)) {
		f.full = true;
		f.ops = 1;
	} else {
		f.ops = __flush_tlb_range_nr_ops(start, pages, stride,
						 system_supports_tlb_range(),
						 lpa2_is_enabled());
	}
	if (reach == TLB_REACH_NONE)
		f.ops = 0;
	/* A batch's IPI (pages all) goes to every online CPU. */
	if (reach == TLB_REACH_IPI)
		f.cpus = (why & TLB_WHY_BATCH) && pages == TLB_POLICY_PAGES_ALL ?
			 cpu_online_mask : mm_tlb_cpumask(mm);
	tlb_policy_note(&f);
}

/*
 * Give a new mm a mask of the CPUs that use it (mm_tlb_cpumask()) under
 * tlbi_method=ipi. The mm is not in use anywhere yet, so every CPU that
 * ever uses it sets its bit first (mm_note_active_cpu()). Without a mask,
 * the fallback when the allocation fails, a flush of the mm interrupts
 * every online CPU. The method is set at boot, before the first mm is
 * created, so under the other methods no mm needs one.
 */
void arm64_tlb_cpus_alloc(struct mm_struct *mm)
{
	mm->context.tlb_cpus = kzalloc(cpumask_size(), GFP_KERNEL_ACCOUNT);
}

void arm64_tlb_cpus_free(struct mm_struct *mm)
{
	kfree(mm->context.tlb_cpus);
	mm->context.tlb_cpus = NULL;
}

/*
 * max_ops counts TLBI operations, which are range operations on CPUs with
 * FEAT_TLBIRANGE (__flush_tlb_range_nr_ops()), single pages elsewhere.
 */
static const struct tlb_policy_arch arm64_tlb_policy = {
	.name		= "arm64",
	.methods	= BIT(TLBI_METHOD_BROADCAST) | BIT(TLBI_METHOD_IPI),
	.auto_method	= TLBI_METHOD_BROADCAST,
	.max_ops	= TLBI_DEFAULT_MAX_OPS,
	.max_ops_limit	= TLBI_MAX_OPS_LIMIT,
	.young_modes	= BIT(TLBI_YOUNG_SYNC) | BIT(TLBI_YOUNG_NOSYNC) |
			  BIT(TLBI_YOUNG_NONE),
	.young		= TLBI_YOUNG_NOSYNC,
};

/*
 * Called by setup_arch() as soon as the early parameters are parsed, so
 * that the first TLB flushes of the boot already follow the policy.
 */
void __init arm64_tlb_policy_init(void)
{
	tlb_policy_init(&arm64_tlb_policy);
}
