// SPDX-License-Identifier: GPL-2.0
/*
 * The peer side, in user space: tests/interop/kiwi-peer run as a usermode
 * helper, and its logs printed to the console.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>

#include "interop.h"
#include "kiwi_test.h"

#define IPT_PEER_PATH	"/bin/kiwi-peer"
#define IPT_PEER_DIR	"/run/kiwi-peer/"
#define IPT_MAX_ARGS	16
#define IPT_LOG_MAX	4096

/*
 * Run a helper (args[0], NULL-terminated) and return its wait status as a
 * shell would report it. The wait is killable, which the hung task
 * detector leaves alone; the tools end within their own time limits.
 */
static int ipt_umh(const char *const *args)
{
	char *argv[IPT_MAX_ARGS], *envp[3];
	int i, ret;

	for (i = 0; args[i] && i < IPT_MAX_ARGS - 1; i++)
		argv[i] = (char *)args[i];
	if (args[i])
		return -E2BIG;
	argv[i] = NULL;
	envp[0] = "HOME=/";
	envp[1] = "PATH=/bin:/usr/bin";
	envp[2] = NULL;
	ret = call_usermodehelper(argv[0], argv, envp,
				  UMH_WAIT_PROC | UMH_KILLABLE);
	if (ret < 0)
		return ret;
	if (ret & 0x7f)
		return 128 + (ret & 0x7f);
	return (ret >> 8) & 0xff;
}

/**
 * ipt_peer() - run "kiwi-peer CMD [ARG1 [ARG2]]" and wait for it
 * @cmd: the command
 * @arg1: its first argument, or NULL
 * @arg2: its second argument, or NULL
 *
 * Context: process context; sleeps.
 * Return: its exit status, or a negative errno if it could not run.
 */
int ipt_peer(const char *cmd, const char *arg1, const char *arg2)
{
	const char *const args[] = { IPT_PEER_PATH, cmd, arg1, arg2, NULL };

	return ipt_umh(args);
}

/**
 * ipt_peer_run() - start a tool in the peer namespace, in the background
 * @tool: "ucmatose" or "rping"
 * @tag: names its log and status (kiwi-peer wait TAG)
 * @secs: it is killed after this long
 * @args: its arguments, NULL-terminated
 *
 * Context: process context; sleeps.
 * Return: the exit status of kiwi-peer (0: started), or a negative errno.
 */
int ipt_peer_run(const char *tool, const char *tag, int secs,
		 const char *const *args)
{
	const char *argv[IPT_MAX_ARGS];
	char limit[12];
	int i, n = 0;

	snprintf(limit, sizeof(limit), "%d", secs);
	argv[n++] = IPT_PEER_PATH;
	argv[n++] = "run";
	argv[n++] = tool;
	argv[n++] = tag;
	argv[n++] = limit;
	for (i = 0; args[i] && n < IPT_MAX_ARGS - 1; i++)
		argv[n++] = args[i];
	if (args[i])
		return -E2BIG;
	argv[n] = NULL;
	return ipt_umh(argv);
}

/**
 * ipt_peer_start() - start ucmatose in the peer namespace, in the background
 * @tag: names its log and status (kiwi-peer wait TAG)
 * @secs: it is killed after this long
 * @args: its arguments, NULL-terminated
 *
 * Context: process context; sleeps.
 * Return: the exit status of kiwi-peer (0: started), or a negative errno.
 */
int ipt_peer_start(const char *tag, int secs, const char *const *args)
{
	return ipt_peer_run("ucmatose", tag, secs, args);
}

/**
 * ipt_peer_print() - print a peer log to the console, line by line
 * @name: the log: a tag, or "kiwi-peer" for the script's own messages
 *
 * Context: process context; sleeps.
 */
void ipt_peer_print(const char *name)
{
	char path[64], *buf, *pos, *line;
	ssize_t n;

	buf = kmalloc(IPT_LOG_MAX, GFP_KERNEL);
	if (!buf)
		return;
	snprintf(path, sizeof(path), IPT_PEER_DIR "%s.log", name);
	n = kiwi_test_read_file(path, buf, IPT_LOG_MAX);
	if (n < 0)
		pr_info("kiwi-peer %s: no log (%zd)\n", name, n);
	pos = buf;
	while (n >= 0 && (line = strsep(&pos, "\n")))
		pr_info("kiwi-peer %s: %s\n", name, line);
	kfree(buf);
}
