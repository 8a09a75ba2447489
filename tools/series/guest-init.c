// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the test guests (not part of the series).
 *
 * Mounts what the selftest needs, prints the policy the kernel reports,
 * runs /tlb_coherence with the arguments given on the kernel command
 * line as tlbp_args=a,b,c (commas for spaces), and reboots, which makes QEMU (-no-reboot)
 * exit. Every line it prints starts with "tlbp-init:".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
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

int main(void)
{
	char *args = getenv("tlbp_args"), *argv[32], *tok;
	int argc = 0, status = 0;
	pid_t pid;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("tlbp-init: cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	cat("method", "/sys/kernel/debug/tlb_policy/method");
	cat("max_ops", "/sys/kernel/debug/tlb_policy/max_ops");
	cat("young", "/sys/kernel/debug/tlb_policy/young");

	argv[argc++] = "/tlb_coherence";
	for (tok = strtok(args ? args : "", ","); tok && argc < 31;
	     tok = strtok(NULL, ","))
		argv[argc++] = tok;
	argv[argc] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		perror("tlbp-init: exec /tlb_coherence");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = -1;
	printf("tlbp-init: selftest exit %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	printf("tlbp-init: done\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
