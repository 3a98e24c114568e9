// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of Documentation/provider-guide.rst ("Proving your driver"),
 * each with the cases that check it. A rule without a case is a gap: the
 * suite kiwi_conformance_rules reports it (and a case this table names
 * but the kit lacks is the kit's own bug, a failure).
 * scripts/conformance_rules.py holds this table and the guide's to the
 * same rules.
 */
#include <linux/string.h>

#include "kc.h"

/**
 * struct kc_rule - a rule of the provider contract
 * @id: its name in the guide
 * @cases: the cases that check it, space-separated, or ""
 */
struct kc_rule {
	const char *id;
	const char *cases;
};

static const struct kc_rule kc_rules[] = {
	{ "cm-request", "kc_connect_accept kc_private_data" },
	{ "cm-accept", "kc_connect_accept kc_private_data kc_ird_ord" },
	{ "cm-reject", "kc_reject kc_private_data" },
	{ "cm-no-listener", "kc_no_listener" },
	{ "cm-private-data", "kc_private_data" },
	{ "cm-ird-ord", "kc_ird_ord" },
	{ "cm-graceful-close", "kc_graceful_close" },
	{ "cm-abortive-close", "kc_abortive_close" },
	{ "cm-active-reject", "kc_active_reject" },
	{ "cm-accept-peer-gone", "kc_accept_peer_gone" },
	{ "cm-listener-destroy", "kc_listener_destroy" },
	{ "cm-backlog", "kc_backlog" },
	{ "ref-balance", "kc_connect_accept kc_reconnect" },
	{ "ref-destroy-order", "kc_destroy_order" },
	{ "ref-unregister-live", "kc_unregister_live" },
	{ "verbs-attrs", "kc_attrs" },
	{ "verbs-send-recv", "kc_send_recv" },
	{ "verbs-rdma-write", "kc_rdma_write" },
	{ "verbs-rdma-read", "kc_rdma_read" },
	{ "verbs-sq-order", "kc_sq_order" },
	{ "verbs-unsignaled", "kc_unsignaled" },
	{ "verbs-pd-isolation", "kc_pd_isolation" },
	{ "verbs-mr-keys", "kc_mr_keys" },
	{ "verbs-fastreg", "kc_fastreg kc_fastreg_local" },
	{ "verbs-flush", "kc_abortive_close kc_graceful_close" },
	{ "verbs-drain", "kc_drain" },
	{ "verbs-missed-events", "kc_missed_events" },
	{ "verbs-cq-overflow", "kc_cq_overflow" },
	{ "verbs-bad-input", "kc_bad_input" },
	{ "cm-bad-input", "kc_listen_taken kc_accept_bad_qp" },
};

static bool kc_word_in(const char *words, const char *word)
{
	size_t n = strlen(word);
	const char *p = words;

	while ((p = strstr(p, word))) {
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/**
 * kc_rules_of() - the rules a case checks
 * @case_name: the case
 *
 * Return: their names, space-separated, in a static buffer (cases run
 * one at a time), or "none".
 */
const char *kc_rules_of(const char *case_name)
{
	static char buf[256];
	size_t k = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kc_rules); i++)
		if (kc_word_in(kc_rules[i].cases, case_name))
			k += scnprintf(buf + k, sizeof(buf) - k, " %s",
				       kc_rules[i].id);
	return k ? buf + 1 : "none";
}

static bool kc_case_exists(const char *name)
{
	static struct kunit_suite *const suites[] = {
		&kc_cm_suite, &kc_verbs_suite,
	};
	struct kunit_case *c;
	int i;

	for (i = 0; i < ARRAY_SIZE(suites); i++)
		for (c = suites[i]->test_cases; c->run_case; c++)
			if (!strcmp(c->name, name))
				return true;
	return false;
}

/* Every case the table names is one of the kit's. */
static void kc_rules_name_cases(struct kunit *test)
{
	char name[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_rules); i++) {
		const char *p = kc_rules[i].cases;

		while (*p) {
			size_t n = strcspn(p, " ");

			strscpy(name, p, min(n + 1, sizeof(name)));
			KUNIT_EXPECT_TRUE_MSG(test, kc_case_exists(name),
					      "rule %s names %s, no case of the kit",
					      kc_rules[i].id, name);
			p += n;
			p += *p == ' ';
		}
	}
}

/* Rules without a case: gaps of the kit, reported as a skip. */
static void kc_rules_gaps(struct kunit *test)
{
	char gaps[256];
	size_t k = 0;
	int i;

	gaps[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kc_rules); i++)
		if (!kc_rules[i].cases[0])
			k += scnprintf(gaps + k, sizeof(gaps) - k, " %s",
				       kc_rules[i].id);
	if (k)
		kunit_skip(test, "rules no case checks yet:%s", gaps);
}

static struct kunit_case kc_rules_cases[] = {
	KUNIT_CASE(kc_rules_name_cases),
	KUNIT_CASE(kc_rules_gaps),
	{}
};

struct kunit_suite kc_rules_suite = {
	.name = "kiwi_conformance_rules",
	.test_cases = kc_rules_cases,
};
