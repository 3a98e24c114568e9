/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the kiwi connection manager: every provider upcall, every
 * state transition, every ULP call and every event delivered to a ULP.
 * State and event names are the ones of enum kiwi_cm_state and
 * enum kiwi_cm_event_type, without their prefix.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kiwi_iwcm

#if !defined(_KIWI_IWCM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KIWI_IWCM_TRACE_H

#include <linux/tracepoint.h>

#include <kiwi/iw_cm.h>

#define kiwi_show_state(s)						\
	__print_symbolic(s,						\
		{ KIWI_CM_STATE_IDLE, "IDLE" },				\
		{ KIWI_CM_STATE_LISTEN, "LISTEN" },			\
		{ KIWI_CM_STATE_CONN_RECV, "CONN_RECV" },		\
		{ KIWI_CM_STATE_CONN_SENT, "CONN_SENT" },		\
		{ KIWI_CM_STATE_ESTABLISHED, "ESTABLISHED" },		\
		{ KIWI_CM_STATE_CLOSING, "CLOSING" },			\
		{ KIWI_CM_STATE_DESTROYING, "DESTROYING" },		\
		{ KIWI_CM_STATE_LINGER, "LINGER" })

#define kiwi_show_event(e)						\
	__print_symbolic(e,						\
		{ KIWI_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },	\
		{ KIWI_CM_EVENT_CONNECT_REPLY, "CONNECT_REPLY" },	\
		{ KIWI_CM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
		{ KIWI_CM_EVENT_DISCONNECT, "DISCONNECT" },		\
		{ KIWI_CM_EVENT_CLOSE, "CLOSE" },			\
		{ KIWI_CM_EVENT_DEVICE_REMOVAL, "DEVICE_REMOVAL" })

#define kiwi_show_action(a)						\
	__print_symbolic(a, { 0, "deliver" }, { 1, "absorb" },		\
			 { 2, "violation" }, { 3, "finish" })

#define kiwi_show_op(o)							\
	__print_symbolic(o, { 0, "listen" }, { 1, "connect" },		\
			 { 2, "accept" }, { 3, "reject" },		\
			 { 4, "disconnect" }, { 5, "destroy" })

TRACE_EVENT(kiwi_cm_upcall,
	    TP_PROTO(const struct kiwi_cm_id *id, unsigned int event,
		     int status, unsigned int state, unsigned int action),
	    TP_ARGS(id, event, status, state, action),
	    TP_STRUCT__entry(__field(const void *, id)
			     __field(unsigned int, event)
			     __field(int, status)
			     __field(unsigned int, state)
			     __field(unsigned int, action)),
	    TP_fast_assign(__entry->id = id;
			   __entry->event = event;
			   __entry->status = status;
			   __entry->state = state;
			   __entry->action = action;),
	    TP_printk("id=%p event=%s status=%d state=%s action=%s",
		      __entry->id, kiwi_show_event(__entry->event),
		      __entry->status, kiwi_show_state(__entry->state),
		      kiwi_show_action(__entry->action))
);

TRACE_EVENT(kiwi_cm_state,
	    TP_PROTO(const struct kiwi_cm_id *id, unsigned int from,
		     unsigned int to),
	    TP_ARGS(id, from, to),
	    TP_STRUCT__entry(__field(const void *, id)
			     __field(unsigned int, from)
			     __field(unsigned int, to)),
	    TP_fast_assign(__entry->id = id;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("id=%p %s -> %s", __entry->id,
		      kiwi_show_state(__entry->from),
		      kiwi_show_state(__entry->to))
);

TRACE_EVENT(kiwi_cm_op,
	    TP_PROTO(const struct kiwi_cm_id *id, unsigned int op,
		     unsigned int state),
	    TP_ARGS(id, op, state),
	    TP_STRUCT__entry(__field(const void *, id)
			     __field(unsigned int, op)
			     __field(unsigned int, state)),
	    TP_fast_assign(__entry->id = id;
			   __entry->op = op;
			   __entry->state = state;),
	    TP_printk("id=%p op=%s state=%s", __entry->id,
		      kiwi_show_op(__entry->op),
		      kiwi_show_state(__entry->state))
);

TRACE_EVENT(kiwi_cm_deliver,
	    TP_PROTO(const struct kiwi_cm_id *id, unsigned int event,
		     int status, int ret),
	    TP_ARGS(id, event, status, ret),
	    TP_STRUCT__entry(__field(const void *, id)
			     __field(unsigned int, event)
			     __field(int, status)
			     __field(int, ret)),
	    TP_fast_assign(__entry->id = id;
			   __entry->event = event;
			   __entry->status = status;
			   __entry->ret = ret;),
	    TP_printk("id=%p event=%s status=%d handler=%d", __entry->id,
		      kiwi_show_event(__entry->event), __entry->status,
		      __entry->ret)
);

#endif /* _KIWI_IWCM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
