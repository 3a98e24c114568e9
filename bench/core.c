// SPDX-License-Identifier: GPL-2.0
/*
 * kiwi_bench_core: the benchmark driver. Stacks register here (the raw TCP
 * baseline is built in; kiwi_bench_kiwi and kiwi_bench_linux are the same
 * rdma_cm source compiled against kiwi and against Linux, and each also
 * registers its floor, "kiwi-floor" and "linux-floor"). Commands are
 * written to the cmd parameter and run before the write returns; the
 * result of the last one is a JSON object in the result parameter:
 *
 *   serve STACK PORT COUNT     listen on COUNT ports from PORT (peer netns)
 *   unserve STACK              close the listeners and what they served
 *   rate STACK PORT CONC N     N connections, CONC at a time: open, close;
 *                              also the time each fifth of them took
 *   hold STACK PORT N          open N connections and keep them
 *   release                    close the held connections
 *
 * and the data-path commands (dp_core.c).
 *
 * Servers live in the peer network namespace (peer_netns_pid), clients in
 * the initial one, so every connection crosses the veth pair.
 */
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>

#include "bench.h"
#include "dp.h"

#define BENCH_MAX_CONC		1024
#define BENCH_MAX_CONNS		100000
/* A rate run's connections, in the order they closed, split in windows. */
#define BENCH_WINDOWS		5

static int peer_netns_pid;
module_param(peer_netns_pid, int, 0644);
MODULE_PARM_DESC(peer_netns_pid, "pid of a task in the servers' namespace");

static char *server_addr = "198.18.0.2";
module_param(server_addr, charp, 0644);
MODULE_PARM_DESC(server_addr, "address the servers listen on");

static LIST_HEAD(bench_stacks);
static DEFINE_MUTEX(bench_lock);	/* protects bench_stacks, bench_held */
static char bench_result[1536];

/**
 * struct bench_run - one batch of connections
 * @stack: the stack
 * @dst: where the clients connect
 * @n: connections in the batch
 * @keep: leave them open (hold) rather than close each at once (rate)
 * @next: the next connection number to take
 * @failed: connections that did not open
 * @err: the first error
 * @running: threads still working
 * @done: completed when the last thread ends
 * @conns: the connections
 * @lat: connect to established, ns, per connection (0: failed)
 * @close: close time, ns, per connection
 */
struct bench_run {
	struct kiwi_bench_stack *stack;
	struct sockaddr_storage dst;
	u32 n;
	bool keep;
	atomic_t next;
	atomic_t failed;
	atomic_t err;
	atomic_t running;
	struct completion done;
	struct kiwi_bench_conn *conns;
	u64 *lat;
	u64 *close;
};

static struct bench_run *bench_held;

/**
 * kiwi_bench_register() - make a stack available to the commands
 * @stack: the stack, valid until kiwi_bench_unregister()
 *
 * Context: process context; sleeps.
 * Return: 0, or -EEXIST if a stack of that name is registered.
 */
int kiwi_bench_register(struct kiwi_bench_stack *stack)
{
	struct kiwi_bench_stack *s;
	int ret = 0;

	mutex_lock(&bench_lock);
	list_for_each_entry(s, &bench_stacks, node)
		if (!strcmp(s->name, stack->name))
			ret = -EEXIST;
	if (!ret)
		list_add_tail(&stack->node, &bench_stacks);
	mutex_unlock(&bench_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kiwi_bench_register);

/**
 * kiwi_bench_unregister() - withdraw a stack
 * @stack: a registered stack
 *
 * Context: process context; sleeps.
 */
void kiwi_bench_unregister(struct kiwi_bench_stack *stack)
{
	mutex_lock(&bench_lock);
	list_del(&stack->node);
	mutex_unlock(&bench_lock);
}
EXPORT_SYMBOL_GPL(kiwi_bench_unregister);

/* Find a stack and pin its module; bench_lock held. */
static struct kiwi_bench_stack *bench_stack_get(const char *name)
{
	struct kiwi_bench_stack *s;

	lockdep_assert_held(&bench_lock);
	list_for_each_entry(s, &bench_stacks, node)
		if (!strcmp(s->name, name))
			return try_module_get(s->owner) ? s : NULL;
	return NULL;
}

static void bench_stack_put(struct kiwi_bench_stack *s)
{
	module_put(s->owner);
}

/* The servers' address at @port. Return: 0 or a negative errno. */
int kiwi_bench_addr(u16 port, struct sockaddr_storage *ss)
{
	char p[8];

	snprintf(p, sizeof(p), "%u", port);
	memset(ss, 0, sizeof(*ss));
	return inet_pton_with_scope(&init_net, AF_UNSPEC, server_addr, p, ss);
}

/* The servers' namespace, referenced, or an ERR_PTR(). */
struct net *kiwi_bench_peer_net(void)
{
	if (peer_netns_pid <= 0)
		return ERR_PTR(-ENOENT);
	return get_net_ns_by_pid(peer_netns_pid);
}

static void bench_run_free(struct bench_run *run)
{
	if (!run)
		return;
	kvfree(run->conns);
	kvfree(run->lat);
	kvfree(run->close);
	kfree(run);
}

static struct bench_run *bench_run_alloc(struct kiwi_bench_stack *stack,
					 u16 port, u32 n, bool keep)
{
	struct bench_run *run = kzalloc(sizeof(*run), GFP_KERNEL);

	if (!run)
		return NULL;
	run->stack = stack;
	run->n = n;
	run->keep = keep;
	init_completion(&run->done);
	run->conns = kvcalloc(n, sizeof(*run->conns), GFP_KERNEL);
	run->lat = kvcalloc(n, sizeof(*run->lat), GFP_KERNEL);
	run->close = kvcalloc(n, sizeof(*run->close), GFP_KERNEL);
	if (!run->conns || !run->lat || !run->close ||
	    kiwi_bench_addr(port, &run->dst)) {
		bench_run_free(run);
		return NULL;
	}
	return run;
}

static void bench_close_one(struct bench_run *run, u32 i)
{
	struct kiwi_bench_conn *c = &run->conns[i];

	c->t[KIWI_BENCH_T_CLOSE] = ktime_get_ns();
	run->stack->close(c);
	c->t[KIWI_BENCH_T_GONE] = ktime_get_ns();
	run->close[i] = c->t[KIWI_BENCH_T_GONE] - c->t[KIWI_BENCH_T_CLOSE];
}

static int bench_worker(void *arg)
{
	struct bench_run *run = arg;
	struct kiwi_bench_conn *c;
	u32 i;
	int ret;

	while ((i = atomic_inc_return(&run->next) - 1) < run->n) {
		c = &run->conns[i];
		c->t[KIWI_BENCH_T_OPEN] = ktime_get_ns();
		ret = run->stack->open(c, &init_net, &run->dst);
		if (ret) {
			atomic_inc(&run->failed);
			atomic_cmpxchg(&run->err, 0, ret);
			continue;
		}
		run->lat[i] = max_t(u64, c->t[KIWI_BENCH_T_ESTABLISHED] -
					 c->t[KIWI_BENCH_T_CONNECT], 1);
		if (!run->keep)
			bench_close_one(run, i);
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	return 0;
}

/* Run @run's connections from @conc threads; returns the elapsed ns. */
static u64 bench_run_go(struct bench_run *run, u32 conc)
{
	struct task_struct *t;
	u64 start = ktime_get_ns();
	u32 i;

	atomic_set(&run->running, 1);
	for (i = 0; i < conc; i++) {
		atomic_inc(&run->running);
		t = kthread_run(bench_worker, run, "kiwi_bench/%u", i);
		if (IS_ERR(t)) {
			atomic_dec(&run->running);
			break;
		}
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	wait_for_completion(&run->done);
	return ktime_get_ns() - start;
}

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* p50 and p99 of @k latencies at @v, sorted in place; 0 when @k is 0. */
static void bench_pcts(u64 *v, u32 k, u64 *p50, u64 *p99)
{
	*p50 = 0;
	*p99 = 0;
	if (!k)
		return;
	sort(v, k, sizeof(u64), bench_cmp_u64, NULL);
	*p50 = v[(k - 1) / 2];
	*p99 = v[(k * 99 + 99) / 100 - 1];
}

/* The latencies of connections @from to n - 1 that opened, into @v. */
static u32 bench_lat_from(struct bench_run *run, u32 from, u64 *v)
{
	u32 i, k = 0;

	for (i = from; i < run->n; i++)
		if (run->lat[i])
			v[k++] = run->lat[i];
	return k;
}

/* Latency percentiles over the connections that opened (in place). */
static void bench_percentiles(struct bench_run *run, u64 *p50, u64 *p99)
{
	bench_pcts(run->lat, bench_lat_from(run, 0, run->lat), p50, p99);
}

/*
 * The run's latency percentiles into @p50 and @p99, and where the tail
 * comes from, as JSON members into @buf: how many connections took the
 * p99 or longer (tail_n); how many of those were among the first @conc
 * started, the threads' simultaneous first connects (tail_first); in how
 * many groups they started (tail_groups: a tail connection started
 * within @conc connections of the previous one is in its group, as one
 * stall of every connection then in flight would make them); and the p99
 * without the first @conc (p99_later_ns). It sorts copies: run->lat
 * stays in start order. -ENOMEM without memory for a copy.
 */
static int bench_tail(struct bench_run *run, u32 conc, char *buf,
		      size_t len, u64 *p50, u64 *p99)
{
	u32 i, n = 0, first = 0, groups = 0, last = 0;
	u64 p50_later, p99_later;
	u64 *v;

	v = kvmalloc_array(run->n, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	bench_pcts(v, bench_lat_from(run, 0, v), p50, p99);
	bench_pcts(v, bench_lat_from(run, conc, v), &p50_later, &p99_later);
	kvfree(v);
	for (i = 0; i < run->n; i++) {
		if (!run->lat[i] || run->lat[i] < *p99)
			continue;
		groups += !n || i - last > conc;
		last = i;
		n++;
		first += i < conc;
	}
	scnprintf(buf, len,
		  ",\"tail_n\":%u,\"tail_first\":%u,\"tail_groups\":%u,\"p99_later_ns\":%llu",
		  n, first, groups, p99_later);
	return 0;
}

static u64 bench_close_avg(struct bench_run *run)
{
	u64 sum = 0;
	u32 i, k = 0;

	for (i = 0; i < run->n; i++) {
		if (run->close[i]) {
			sum += run->close[i];
			k++;
		}
	}
	return k ? div64_u64(sum, k) : 0;
}

/* Mean time from mark @a to mark @b, in us, over the connections with both. */
static u64 bench_stage_us(struct bench_run *run, int a, int b)
{
	u64 sum = 0;
	u32 i, k = 0;

	for (i = 0; i < run->n; i++) {
		const u64 *t = run->conns[i].t;

		if (t[a] && t[b] >= t[a]) {
			sum += t[b] - t[a];
			k++;
		}
	}
	return k ? div64_u64(sum, (u64)k * NSEC_PER_USEC) : 0;
}

/* The per-stage breakdown of a run, as JSON members, into @buf. */
static void bench_stages(struct bench_run *run, char *buf, size_t len)
{
	struct kiwi_bench_srv *srv = &run->stack->srv;
	int n = atomic_read(&srv->n);
	size_t off;
	int m;

	off = scnprintf(buf, len, ",\"stages_us\":[");
	for (m = KIWI_BENCH_T_OPEN; m < KIWI_BENCH_T_GONE; m++) {
		if (m == KIWI_BENCH_T_ESTABLISHED)
			continue;	/* established -> close: not the stack's */
		off += scnprintf(buf + off, len - off, "%s%llu",
				 m ? "," : "", bench_stage_us(run, m, m + 1));
	}
	scnprintf(buf + off, len - off,
		  "],\"srv_req_us\":%llu,\"srv_accept_us\":%llu",
		  n ? div64_u64(atomic64_read(&srv->req_ns),
				(u64)n * NSEC_PER_USEC) : 0,
		  n ? div64_u64(atomic64_read(&srv->accept_ns),
				(u64)n * NSEC_PER_USEC) : 0);
}

/*
 * The run's connections that opened, in the order they were gone, cut in
 * BENCH_WINDOWS windows of equal count: the ns each window took (the
 * first from the run's start), as a JSON member, into @buf. The threads
 * run on across the cuts, so each window is a rate measured in the same
 * steady load, and their spread shows how much the rate moved within the
 * run.
 */
static void bench_windows(struct bench_run *run, u64 start, char *buf,
			  size_t len)
{
	u64 *end, prev = start;
	size_t off;
	u32 i, k = 0, w, m;

	buf[0] = '\0';
	end = kvcalloc(run->n, sizeof(*end), GFP_KERNEL);
	if (!end)
		return;
	for (i = 0; i < run->n; i++)
		if (run->lat[i])
			end[k++] = run->conns[i].t[KIWI_BENCH_T_GONE];
	m = k / BENCH_WINDOWS;
	if (m) {
		sort(end, k, sizeof(u64), bench_cmp_u64, NULL);
		off = scnprintf(buf, len, ",\"win_n\":%u,\"win_ns\":[", m);
		for (w = 1; w <= BENCH_WINDOWS; w++) {
			off += scnprintf(buf + off, len - off, "%s%llu",
					 w > 1 ? "," : "",
					 end[w * m - 1] - prev);
			prev = end[w * m - 1];
		}
		scnprintf(buf + off, len - off, "]");
	}
	kvfree(end);
}

static void bench_srv_reset(struct kiwi_bench_srv *srv)
{
	atomic64_set(&srv->req_ns, 0);
	atomic64_set(&srv->accept_ns, 0);
	atomic_set(&srv->n, 0);
}

static int bench_rate(struct kiwi_bench_stack *stack, u16 port, u32 conc,
		      u32 n)
{
	struct bench_run *run;
	u64 start, ns, p50, p99;
	char stages[256], windows[160], tail[96];
	int failed;

	if (!conc || conc > BENCH_MAX_CONC || !n || n > BENCH_MAX_CONNS)
		return -EINVAL;
	run = bench_run_alloc(stack, port, n, false);
	if (!run)
		return -ENOMEM;
	bench_srv_reset(&stack->srv);
	start = ktime_get_ns();
	ns = bench_run_go(run, conc);
	failed = atomic_read(&run->failed);
	bench_stages(run, stages, sizeof(stages));
	bench_windows(run, start, windows, sizeof(windows));
	tail[0] = '\0';
	if (bench_tail(run, conc, tail, sizeof(tail), &p50, &p99))
		bench_percentiles(run, &p50, &p99);
	snprintf(bench_result, sizeof(bench_result),
		 "{\"cmd\":\"rate\",\"stack\":\"%s\",\"conc\":%u,\"n\":%u,\"failed\":%d,\"err\":%d,\"elapsed_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"close_ns\":%llu%s%s%s}",
		 stack->name, conc, n, failed, atomic_read(&run->err), ns,
		 p50, p99, bench_close_avg(run), stages, windows, tail);
	bench_run_free(run);
	return 0;
}

static int bench_hold(struct kiwi_bench_stack *stack, u16 port, u32 n)
{
	struct bench_run *run;
	u64 ns;

	lockdep_assert_held(&bench_lock);
	if (bench_held)
		return -EBUSY;
	if (!n || n > BENCH_MAX_CONNS)
		return -EINVAL;
	run = bench_run_alloc(stack, port, n, true);
	if (!run)
		return -ENOMEM;
	ns = bench_run_go(run, min_t(u32, n, 16));
	__module_get(stack->owner);
	bench_held = run;
	snprintf(bench_result, sizeof(bench_result),
		 "{\"cmd\":\"hold\",\"stack\":\"%s\",\"n\":%u,\"failed\":%d,\"err\":%d,\"elapsed_ns\":%llu}",
		 stack->name, n, atomic_read(&run->failed),
		 atomic_read(&run->err), ns);
	return 0;
}

static int bench_release(void)
{
	struct bench_run *run = bench_held;
	u32 i;

	lockdep_assert_held(&bench_lock);
	if (!run)
		return -ENOENT;
	for (i = 0; i < run->n; i++)
		if (run->lat[i])
			bench_close_one(run, i);
	snprintf(bench_result, sizeof(bench_result),
		 "{\"cmd\":\"release\",\"stack\":\"%s\",\"n\":%u,\"close_ns\":%llu}",
		 run->stack->name, run->n, bench_close_avg(run));
	bench_held = NULL;
	bench_stack_put(run->stack);
	bench_run_free(run);
	return 0;
}

static int bench_serve(struct kiwi_bench_stack *stack, u16 port, u32 count)
{
	u64 start = ktime_get_ns();
	struct sockaddr_storage ss;
	struct net *net;
	u32 i;
	int ret = 0;

	net = kiwi_bench_peer_net();
	if (IS_ERR(net))
		return PTR_ERR(net);
	for (i = 0; i < count && !ret; i++) {
		ret = kiwi_bench_addr(port + i, &ss);
		if (!ret)
			ret = stack->serve(net, &ss);
	}
	put_net(net);
	snprintf(bench_result, sizeof(bench_result),
		 "{\"cmd\":\"serve\",\"stack\":\"%s\",\"port\":%u,\"count\":%u,\"err\":%d,\"elapsed_ns\":%llu}",
		 stack->name, port, count, ret, ktime_get_ns() - start);
	return ret;
}

/* Run one command line with the stack it names pinned. */
static int bench_command(const char *cmd, const char *name, u32 a, u32 b,
			 u32 c, int args)
{
	struct kiwi_bench_stack *stack;
	int ret = -EINVAL;

	lockdep_assert_held(&bench_lock);
	if (!strcmp(cmd, "release"))
		return bench_release();
	ret = kiwi_bench_dp_command(cmd, name, a, b, c, args, bench_result,
				    sizeof(bench_result));
	if (ret != -ENOIOCTLCMD)
		return ret;
	ret = -EINVAL;
	stack = bench_stack_get(name);
	if (!stack)
		return -ENOENT;
	if (!strcmp(cmd, "serve") && args == 4)
		ret = bench_serve(stack, a, b);
	else if (!strcmp(cmd, "unserve") && args == 2)
		ret = (stack->unserve(), 0);
	else if (!strcmp(cmd, "rate") && args == 5)
		ret = bench_rate(stack, a, b, c);
	else if (!strcmp(cmd, "hold") && args == 4)
		ret = bench_hold(stack, a, b);
	bench_stack_put(stack);
	return ret;
}

static int bench_cmd_set(const char *val, const struct kernel_param *kp)
{
	char cmd[16], name[16];
	u32 a = 0, b = 0, c = 0;
	int args, ret;

	args = sscanf(val, "%15s %15s %u %u %u", cmd, name, &a, &b, &c);
	if (args < 1)
		return -EINVAL;
	if (args == 1)
		name[0] = '\0';
	mutex_lock(&bench_lock);
	bench_result[0] = '\0';
	ret = bench_command(cmd, name, a, b, c, args);
	mutex_unlock(&bench_lock);
	return ret;
}

static int bench_result_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", bench_result);
}

static const struct kernel_param_ops bench_cmd_ops = {
	.set = bench_cmd_set,
};
module_param_cb(cmd, &bench_cmd_ops, NULL, 0200);
MODULE_PARM_DESC(cmd, "a command to run (see the source's head comment)");

static const struct kernel_param_ops bench_result_ops = {
	.get = bench_result_get,
};
module_param_cb(result, &bench_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "the last command's result, as JSON");

static int __init bench_init(void)
{
	int ret = kiwi_bench_tcp_init();

	if (ret)
		return ret;
	ret = kiwi_bench_register(&kiwi_bench_tcp);
	if (ret)
		goto err_tcp_exit;
	ret = kiwi_bench_dp_init();
	if (ret)
		goto err_unregister;
	return 0;

err_unregister:
	kiwi_bench_unregister(&kiwi_bench_tcp);
err_tcp_exit:
	kiwi_bench_tcp_exit();
	return ret;
}

static void __exit bench_exit(void)
{
	mutex_lock(&bench_lock);
	if (bench_held)
		bench_release();
	mutex_unlock(&bench_lock);
	kiwi_bench_dp_exit();
	kiwi_bench_unregister(&kiwi_bench_tcp);
	kiwi_bench_tcp_exit();
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("kiwi benchmark driver and TCP baseline");
MODULE_LICENSE("GPL");
