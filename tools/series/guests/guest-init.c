// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the test guests (not part of the series).
 *
 * Mounts what the selftest needs, sets up 64 MB of swap on zram0 (for
 * the selftest's pageout case), prints the policy the kernel reports,
 * runs /tlb_coherence with the arguments given on the kernel command
 * line as tlbp_args=a,b,c (commas for spaces), and only the cases of
 * tlbp_cases=a:b:c (colons for its -c list's commas) when that is given,
 * and reboots, which makes QEMU (-no-reboot) exit. Every line it prints
 * starts with "tlbp-init:". The guest is thrown away after one run, so
 * it always passes -D, which lets the selftest's destructive cases run
 * (hotplug takes a CPU offline and online, switch rewrites max_ops in
 * debugfs); without it they would be skipped, in every row, and in
 * tools/series/breakage/selftest-check's boots.
 *
 * With tlbp_stress=SECS and /stress-ng in the initramfs (tools/series/
 * stress-ng), it then runs "stress-ng --tlb-shootdown 4" for SECS
 * seconds, the workload of the arm64 local-flush RFC, with the flush
 * counters turned on and reset before and printed after as
 * "tlbp-init: stress-stat".
 *
 * With tlbp_trace=1 it keeps a histogram of the tlb_policy_flush events
 * by reach and reasons while the selftest runs, and prints it as
 * "tlbp-init: trace" lines, next to the flush counters ("trace-stat");
 * with the event also enabled (trace_event=tlb_policy:tlb_policy_flush),
 * the first lines of the trace as "trace-event".
 *
 * With tlbp_cost=1 it runs /tlbp_cost (tools/series/cost/cost-workload.c)
 * instead of the selftest, for tools/series/cost/cost.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static void cat(const char *what, const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("tlbp-init: %s n/a\n", what);
		return;
	}
	while (fgets(line, sizeof(line), f))
		printf("tlbp-init: %s %s", what, line);
	fclose(f);
}

/*
 * The ISA string of the first CPU, where /proc/cpuinfo has one (riscv),
 * so that a row can check which extensions the kernel found.
 */
static void cpu_isa(void)
{
	char line[1024];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "isa", 3)) {
			printf("tlbp-init: %s", line);
			break;
		}
	}
	fclose(f);
}

/* Read the first line of PATH into BUF; 0 on success. */
static int read_line(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");
	int ret = f && fgets(buf, size, f) ? 0 : -1;

	if (f)
		fclose(f);
	return ret;
}

/* Write VAL to PATH in one write(); 0 on success, else errno. */
static int write_val(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/*
 * x86 keeps its old debugfs file for the range ceiling as a link to
 * tlb_policy/max_ops: both read the same, a write to the old one shows
 * in the new one, in hexadecimal too as 7.1.5 took it, and a write that
 * is not a number fails with EINVAL and changes nothing. Prints
 * "ceiling_alias ok" or what failed.
 */
static void check_ceiling_alias(void)
{
	const char *old = "/sys/kernel/debug/x86/tlb_single_page_flush_ceiling";
	const char *new = "/sys/kernel/debug/tlb_policy/max_ops";
	char was[32], a[32], b[32];
	const char *bad = NULL;

	if (access(new, F_OK) || access("/sys/kernel/debug/x86", F_OK))
		return;		/* no policy, or not x86 */
	if (read_line(new, was, sizeof(was)) || read_line(old, a, sizeof(a)))
		bad = "the old file cannot be read";
	else if (strcmp(a, was))
		bad = "the old file and max_ops differ";
	else if (write_val(old, "40") || read_line(new, b, sizeof(b)) ||
		 strcmp(b, "40\n"))
		bad = "a write of 40 to the old file does not show in max_ops";
	else if (write_val(old, "0x21") || read_line(new, b, sizeof(b)) ||
		 strcmp(b, "33\n"))
		bad = "a write of 0x21 to the old file does not show as 33";
	else if (write_val(old, "21x") != EINVAL)
		bad = "a write of 21x did not fail with EINVAL";
	else if (read_line(new, b, sizeof(b)) || strcmp(b, "33\n"))
		bad = "a failed write changed max_ops";
	was[strcspn(was, "\n")] = 0;
	write_val(new, was);
	printf("tlbp-init: ceiling_alias %s\n", bad ? bad : "ok");
}

#define EV "/sys/kernel/tracing/events/tlb_policy/tlb_policy_flush"
#define HIST "hist:keys=reach,why:vals=hitcount,ops:sort=reach,why:size=256"

/*
 * The names of one field's values, from the event's print format: the
 * { value, "name" } pairs that follow MARK, up to the closing ')'.
 */
struct names {
	int n;
	unsigned long val[32];
	char name[32][24];
};

static void parse_names(const char *fmt, const char *mark, struct names *nm)
{
	const char *p = strstr(fmt, mark), *end;
	unsigned long v;
	int len;

	nm->n = 0;
	if (!p)
		return;
	p += strlen(mark);
	end = strchr(p, ')');
	while (nm->n < 32 && (p = strchr(p, '{')) && (!end || p < end) &&
	       sscanf(p, "{ %li, \"%23[^\"]\"%n", &v,
		      nm->name[nm->n], &len) == 2) {
		nm->val[nm->n++] = v;
		p += len;
	}
}

/* VAL as the names of its bits ("a|b"), or "-" for none. */
static void flag_names(const struct names *nm, unsigned long val, char *buf,
		       int size)
{
	int i, n = 0;

	buf[0] = 0;
	for (i = 0; i < nm->n; i++)
		if (val & nm->val[i])
			n += snprintf(buf + n, size > n ? size - n : 0, "%s%s",
				      n ? "|" : "", nm->name[i]);
	if (!n)
		snprintf(buf, size, "-");
}

/*
 * tlbp_trace=1: a histogram of the tlb_policy_flush events by reach and
 * reasons, kept by the kernel (a hist trigger, so that no event is lost
 * to a full buffer), from before the selftest to after it, with the
 * flush counters turned on and reset at the same time.
 */
static int trace_start(void)
{
	const char *stats = "/sys/kernel/debug/tlb_policy/stats";

	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (access(EV "/trigger", W_OK)) {
		printf("tlbp-init: trace n/a (no %s)\n", EV);
		return -1;
	}
	if (write_val(EV "/trigger", HIST) || write_val(stats, "on") ||
	    write_val(stats, "0") || write_val(EV "/trigger", HIST ":clear")) {
		printf("tlbp-init: trace setup failed\n");
		return -1;
	}
	/* Empty the ring buffer, which holds the events of boot if any. */
	close(open("/sys/kernel/tracing/trace", O_WRONLY | O_TRUNC));
	return 0;
}

/*
 * Print the histogram as "trace reach=R why=W hits=N ops=M" lines, its
 * totals as "trace-total", and the counters beside it as "trace-stat".
 */
static void trace_report(void)
{
	static char fmt[16384];
	struct names reach, why;
	unsigned long r, w, hits, ops;
	char line[512], wn[256];
	FILE *f;
	size_t n;
	int i;

	write_val(EV "/trigger", HIST ":pause");
	cat("trace-stat", "/sys/kernel/debug/tlb_policy/stats");
	f = fopen(EV "/format", "r");
	n = f ? fread(fmt, 1, sizeof(fmt) - 1, f) : 0;
	fmt[n] = 0;
	if (f)
		fclose(f);
	parse_names(fmt, "REC->reach,", &reach);
	parse_names(fmt, "REC->why, \"|\",", &why);
	f = fopen(EV "/hist", "r");
	if (!f) {
		printf("tlbp-init: trace n/a (no hist)\n");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "{ reach: %lu , why: %lu } hitcount: %lu ops: %lu",
			   &r, &w, &hits, &ops) == 4) {
			const char *rn = "?";

			for (i = 0; i < reach.n; i++)
				if (reach.val[i] == r)
					rn = reach.name[i];
			flag_names(&why, w, wn, sizeof(wn));
			printf("tlbp-init: trace reach=%s why=%s hits=%lu ops=%lu\n",
			       rn, wn, hits, ops);
		} else if (strstr(line, "Hits:") || strstr(line, "Entries:") ||
			   strstr(line, "Dropped:")) {
			printf("tlbp-init: trace-total %s", line + strspn(line, " "));
		}
	}
	fclose(f);

	/* With the event on in the ring buffer too, a few of its lines. */
	if (read_line(EV "/enable", line, sizeof(line)) || line[0] != '1')
		return;
	f = fopen("/sys/kernel/tracing/trace", "r");
	for (i = 0; f && i < 8 && fgets(line, sizeof(line), f);)
		if (line[0] != '#') {
			printf("tlbp-init: trace-event %s", line);
			i++;
		}
	if (f)
		fclose(f);
}

/*
 * A swap area on /dev/zram0: the disk size, then a version 1 swap header
 * (what mkswap writes: the last page number at byte 1028, the signature
 * at the end of the first page), then swapon().
 */
static void setup_swap(void)
{
	const unsigned int size = 64 << 20, psz = sysconf(_SC_PAGESIZE);
	unsigned int hdr[2] = { 1, size / psz - 1 };	/* version, last_page */
	static char page[65536];
	int fd;

	fd = open("/sys/block/zram0/disksize", O_WRONLY);
	if (fd < 0 || dprintf(fd, "%u", size) < 0) {
		printf("tlbp-init: swap n/a (no zram0)\n");
		return;
	}
	close(fd);
	memcpy(page + 1024, hdr, sizeof(hdr));
	memcpy(page + psz - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY);
	if (fd < 0 || write(fd, page, psz) != (ssize_t)psz || fsync(fd) ||
	    close(fd) || swapon("/dev/zram0", 0)) {
		perror("tlbp-init: swap on /dev/zram0");
		return;
	}
	printf("tlbp-init: swap %u MB on zram0\n", size >> 20);
}

/* Run argv[0] with argv and wait; return its exit status, or 128. */
static int run(char *const argv[])
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		printf("tlbp-init: exec %s failed\n", argv[0]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 128;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void run_stress(const char *secs)
{
	char *argv[] = { "/stress-ng", "--tlb-shootdown", "4", "--timeout",
			 (char *)secs, "--metrics-brief", NULL };
	const char *stats = "/sys/kernel/debug/tlb_policy/stats";

	if (access(argv[0], X_OK)) {
		printf("tlbp-init: stress-ng n/a (not in the initramfs)\n");
		return;
	}
	/* The counters count only once turned on. */
	if (!access(stats, F_OK) &&
	    (write_val(stats, "on") || write_val(stats, "0")))
		printf("tlbp-init: turning on and resetting %s failed\n", stats);
	printf("tlbp-init: stress-ng exit %d\n", run(argv));
	cat("stress-stat", stats);
}

int main(void)
{
	char *args = getenv("tlbp_args"), *stress = getenv("tlbp_stress");
	char *cases = getenv("tlbp_cases"), *trace = getenv("tlbp_trace");
	char *argv[32], *tok;
	int argc = 0;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_swap();

	printf("tlbp-init: cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	cpu_isa();
	cat("method", "/sys/kernel/debug/tlb_policy/method");
	cat("max_ops", "/sys/kernel/debug/tlb_policy/max_ops");
	cat("young", "/sys/kernel/debug/tlb_policy/young");
	check_ceiling_alias();

	if (getenv("tlbp_cost")) {
		char *cost[] = { "/tlbp_cost", NULL };

		printf("tlbp-init: cost exit %d\n", run(cost));
		goto out;
	}

	argv[argc++] = "/tlb_coherence";
	argv[argc++] = "-D";	/* a throwaway guest: hotplug and switch too */
	for (tok = strtok(args ? args : "", ","); tok && argc < 31;
	     tok = strtok(NULL, ","))
		argv[argc++] = tok;
	if (cases && *cases && argc < 30) {
		for (tok = cases; *tok; tok++)
			if (*tok == ':')
				*tok = ',';
		argv[argc++] = "-c";
		argv[argc++] = cases;
		printf("tlbp-init: cases %s\n", cases);
	}
	argv[argc] = NULL;

	if (trace && strcmp(trace, "1"))
		trace = NULL;
	if (trace && trace_start())
		trace = NULL;
	printf("tlbp-init: selftest exit %d\n", run(argv));
	if (trace)
		trace_report();
	if (stress)
		run_stress(stress);
out:
	printf("tlbp-init: done\n");
	fflush(stdout);
	/*
	 * Let the console drain before the reboot throws its buffer away:
	 * it can be slow, for example when QEMU's APLIC leaves the UART's
	 * interrupt disabled ("irq N: nobody cared") and output is polled.
	 */
	tcdrain(STDOUT_FILENO);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
