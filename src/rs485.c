// SPDX-License-Identifier: GPL-2.0
/*
 * ttypair - RS-485 mode of an end, as serial_core offers it to user space:
 * TIOCGRS485 and TIOCSRS485 with serial_core's checks and sanitising, the
 * same settings as text (sysfs, configfs), and the RTS line the
 * transmitter drives while the mode is on (xfer.c times it). The peer sees
 * that RTS on the input its wiring connects to it (CTS on a null-modem
 * cable).
 *
 * What an end supports, as a UART driver declares it in rs485_supported:
 * SER_RS485_ENABLED, SER_RS485_RTS_ON_SEND, SER_RS485_RTS_AFTER_SEND and
 * both delays up to 100 ms; on a port of a bus also SER_RS485_RX_DURING_TX
 * (the port hears its own transmission, busline.c). SER_RS485_TERMINATE_BUS
 * is dropped (there is no terminator to switch), and so is
 * SER_RS485_RX_DURING_TX on a pair's end (its receiver hears only the
 * peer); addressing (SER_RS485_ADDRB) and RS-422 mode are refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/serial.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "ttypair.h"

/* serial_core's SER_RS485_LEGACY_FLAGS: unsupported ones are dropped */
#define TTYPAIR_RS485_LEGACY	(SER_RS485_ENABLED | SER_RS485_RTS_ON_SEND | \
				 SER_RS485_RTS_AFTER_SEND | \
				 SER_RS485_RX_DURING_TX | \
				 SER_RS485_TERMINATE_BUS)
#define TTYPAIR_RS485_FLAGS	(SER_RS485_ENABLED | SER_RS485_RTS_ON_SEND | \
				 SER_RS485_RTS_AFTER_SEND)
/* serial_core's RS485_MAX_RTS_DELAY, in milliseconds */
#define TTYPAIR_RS485_MAX_DELAY	100U

/*
 * serial_core's uart_check_rs485_flags(): flags that are not among the
 * legacy ones must be supported (none is, here), and the address bytes
 * (the first two bytes of the padding in kernels without them) must be 0
 * without their flags.
 */
static int ttypair_rs485_check(const struct serial_rs485 *rs485)
{
	const u8 *addr = (const u8 *)rs485->padding;

	if (rs485->flags & ~TTYPAIR_RS485_LEGACY)
		return -EINVAL;
	if (addr[0] || addr[1])
		return -EINVAL;
	return 0;
}

/* serial_core's uart_sanitize_serial_rs485(), for what an end supports */
static void ttypair_rs485_sanitize(struct ttypair_port *tp,
				   struct serial_rs485 *rs485)
{
	u32 flags;

	if (!(rs485->flags & SER_RS485_ENABLED)) {
		memset(rs485, 0, sizeof(*rs485));
		return;
	}
	flags = rs485->flags & (TTYPAIR_RS485_FLAGS |
				(tp->pair->bus ? SER_RS485_RX_DURING_TX : 0));
	if (!(flags & SER_RS485_RTS_ON_SEND) ==
	    !(flags & SER_RS485_RTS_AFTER_SEND)) {
		pr_warn_ratelimited("%s%u: invalid RTS setting, using RTS_ON_SEND instead\n",
				    ttypair_port_prefix(tp), tp->tty_index);
		flags |= SER_RS485_RTS_ON_SEND;
		flags &= ~SER_RS485_RTS_AFTER_SEND;
	}
	rs485->flags = flags;
	if (rs485->delay_rts_before_send > TTYPAIR_RS485_MAX_DELAY) {
		rs485->delay_rts_before_send = TTYPAIR_RS485_MAX_DELAY;
		pr_warn_ratelimited("%s%u: RTS delay before sending clamped to %u ms\n",
				    ttypair_port_prefix(tp), tp->tty_index,
				    TTYPAIR_RS485_MAX_DELAY);
	}
	if (rs485->delay_rts_after_send > TTYPAIR_RS485_MAX_DELAY) {
		rs485->delay_rts_after_send = TTYPAIR_RS485_MAX_DELAY;
		pr_warn_ratelimited("%s%u: RTS delay after sending clamped to %u ms\n",
				    ttypair_port_prefix(tp), tp->tty_index,
				    TTYPAIR_RS485_MAX_DELAY);
	}
	memset(rs485->padding, 0, sizeof(rs485->padding));
}

/**
 * ttypair_rs485_outputs() - the outputs of an end as its peer sees them
 * @tp: the end
 *
 * In RS-485 mode the transmitter drives RTS, whatever TIOCMSET, the line
 * discipline or the open and close asked of it.
 *
 * Context: pair->lock held.
 * Return: TIOCM_* output bits.
 */
unsigned int ttypair_rs485_outputs(const struct ttypair_port *tp)
{
	if (!(tp->rs485.flags & SER_RS485_ENABLED))
		return tp->mctrl;
	return (tp->mctrl & ~TIOCM_RTS) | (tp->rs485_rts ? TIOCM_RTS : 0);
}

/**
 * ttypair_rs485_set_rts() - drive RTS for sending or for having sent
 * @tp: an end in RS-485 mode
 * @sending: true as a transmission starts, false once it is over
 *
 * RTS takes the level SER_RS485_RTS_ON_SEND or SER_RS485_RTS_AFTER_SEND
 * asks for.
 *
 * Context: pair->lock held.
 * Return: the peer's inputs that changed, for ttypair_inputs_notify() once
 * the lock is dropped.
 */
unsigned int ttypair_rs485_set_rts(struct ttypair_port *tp, bool sending)
{
	u32 level = sending ? SER_RS485_RTS_ON_SEND : SER_RS485_RTS_AFTER_SEND;

	tp->rs485_rts = tp->rs485.flags & level;
	return tp->peer ? ttypair_inputs_refresh(tp->peer) : 0;
}

/*
 * Take a checked and sanitised configuration: RTS goes to the level for
 * the state the transmitter is in (sending while its turnaround lasts), or
 * back to what TIOCMSET set when the mode ends, as serial_core restores
 * the modem lines. Serialised by port->mutex.
 */
static void ttypair_rs485_apply(struct ttypair_port *tp,
				const struct serial_rs485 *rs485)
{
	unsigned long flags;
	unsigned int changed;

	spin_lock_irqsave(&tp->pair->lock, flags);
	tp->rs485 = *rs485;
	ttypair_tx_route(tp->pair);
	if (rs485->flags & SER_RS485_ENABLED)
		changed = ttypair_rs485_set_rts(tp, tp->txq.rts_active);
	else if (tp->peer)
		changed = ttypair_inputs_refresh(tp->peer);
	else
		changed = 0;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
	ttypair_inputs_notify(ttypair_peer(tp), changed);
	/* queued bytes move on at the new terms */
	ttypair_tx_kick(tp);
}

/**
 * ttypair_rs485_get() - the RS-485 configuration of an end
 * @tp: the end
 * @rs485: filled in
 */
void ttypair_rs485_get(struct ttypair_port *tp, struct serial_rs485 *rs485)
{
	unsigned long flags;

	spin_lock_irqsave(&tp->pair->lock, flags);
	*rs485 = tp->rs485;
	spin_unlock_irqrestore(&tp->pair->lock, flags);
}

/**
 * ttypair_rs485_set() - configure RS-485 mode of an end
 * @tp: the end
 * @rs485: what user space asks for; on success, what took effect
 *
 * Context: process context; sleeps.
 * Return: 0, or -EINVAL for flags or addresses serial_core refuses (then
 * nothing changes).
 */
int ttypair_rs485_set(struct ttypair_port *tp, struct serial_rs485 *rs485)
{
	int ret;

	ret = ttypair_rs485_check(rs485);
	if (ret)
		return ret;
	ttypair_rs485_sanitize(tp, rs485);
	mutex_lock(&tp->port.mutex);
	ttypair_rs485_apply(tp, rs485);
	mutex_unlock(&tp->port.mutex);
	return 0;
}

/**
 * ttypair_rs485_ioctl() - TIOCGRS485 and TIOCSRS485
 * @tp: the end
 * @cmd: the ioctl
 * @arg: the user's struct serial_rs485
 *
 * TIOCSRS485 copies back what took effect, as serial_core does.
 *
 * Context: process context; sleeps.
 * Return: 0, -EFAULT, -EINVAL, or -ENOIOCTLCMD for another @cmd.
 */
int ttypair_rs485_ioctl(struct ttypair_port *tp, unsigned int cmd,
			void __user *arg)
{
	struct serial_rs485 rs485;
	int ret;

	switch (cmd) {
	case TIOCGRS485:
		ttypair_rs485_get(tp, &rs485);
		break;
	case TIOCSRS485:
		if (copy_from_user(&rs485, arg, sizeof(rs485)))
			return -EFAULT;
		ret = ttypair_rs485_set(tp, &rs485);
		if (ret)
			return ret;
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return copy_to_user(arg, &rs485, sizeof(rs485)) ? -EFAULT : 0;
}

/**
 * ttypair_rs485_show() - the RS-485 configuration of an end as text
 * @tp: the end
 * @buf: a page
 *
 * "disabled", or "enabled", the RTS flag in effect, "rx_during_tx" if set
 * (bus ports) and both delays in milliseconds, e.g. "enabled rts_on_send
 * delay_rts_before_send=0 delay_rts_after_send=0"; with a newline.
 *
 * Return: the length of the text.
 */
ssize_t ttypair_rs485_show(struct ttypair_port *tp, char *buf)
{
	struct serial_rs485 rs485;

	ttypair_rs485_get(tp, &rs485);
	if (!(rs485.flags & SER_RS485_ENABLED))
		return sysfs_emit(buf, "disabled\n");
	return sysfs_emit(buf, "enabled%s%s%s delay_rts_before_send=%u delay_rts_after_send=%u\n",
			  rs485.flags & SER_RS485_RTS_ON_SEND ?
			  " rts_on_send" : "",
			  rs485.flags & SER_RS485_RTS_AFTER_SEND ?
			  " rts_after_send" : "",
			  rs485.flags & SER_RS485_RX_DURING_TX ?
			  " rx_during_tx" : "",
			  rs485.delay_rts_before_send,
			  rs485.delay_rts_after_send);
}

static const struct {
	const char *name;
	u32 flag;
} ttypair_rs485_words[] = {
	{ "enabled",		SER_RS485_ENABLED },
	{ "rts_on_send",	SER_RS485_RTS_ON_SEND },
	{ "rts_after_send",	SER_RS485_RTS_AFTER_SEND },
	{ "rx_during_tx",	SER_RS485_RX_DURING_TX },
	{ "terminate_bus",	SER_RS485_TERMINATE_BUS },
};

/* "delay_rts_before_send=N": store N in *val; false if @word is not @key */
static bool ttypair_rs485_delay(const char *word, size_t len, const char *key,
				u32 *val, int *err)
{
	size_t klen = strlen(key);
	char num[12];

	if (len <= klen + 1 || strncmp(word, key, klen) || word[klen] != '=')
		return false;
	if (len - klen - 1 >= sizeof(num)) {
		*err = -EINVAL;
		return true;
	}
	memcpy(num, word + klen + 1, len - klen - 1);
	num[len - klen - 1] = '\0';
	*err = kstrtou32(num, 10, val);
	return true;
}

/**
 * ttypair_rs485_store() - configure RS-485 mode of an end from a text
 * @tp: the end
 * @buf: "disabled" (or "0"), or words separated by spaces: "enabled",
 *	"rts_on_send", "rts_after_send", "rx_during_tx", "terminate_bus",
 *	"delay_rts_before_send=N", "delay_rts_after_send=N" (N in ms); what
 *	is not named is clear or 0. Sanitised as TIOCSRS485 is.
 * @count: length of @buf
 *
 * Return: @count, or -EINVAL (nothing changed).
 */
ssize_t ttypair_rs485_store(struct ttypair_port *tp, const char *buf,
			    size_t count)
{
	struct serial_rs485 rs485 = { 0 };
	const char *p = buf;
	int ret = 0;

	if (sysfs_streq(buf, "disabled") || sysfs_streq(buf, "0"))
		return ttypair_rs485_set(tp, &rs485) ?: count;
	for (;;) {
		size_t len;
		int i;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		len = strcspn(p, " \t\n");
		for (i = 0; i < ARRAY_SIZE(ttypair_rs485_words); i++) {
			if (strlen(ttypair_rs485_words[i].name) == len &&
			    !strncmp(ttypair_rs485_words[i].name, p, len)) {
				rs485.flags |= ttypair_rs485_words[i].flag;
				break;
			}
		}
		if (i == ARRAY_SIZE(ttypair_rs485_words) &&
		    !ttypair_rs485_delay(p, len, "delay_rts_before_send",
					 &rs485.delay_rts_before_send, &ret) &&
		    !ttypair_rs485_delay(p, len, "delay_rts_after_send",
					 &rs485.delay_rts_after_send, &ret))
			ret = -EINVAL;
		if (ret)
			return -EINVAL;
		p += len;
	}
	if (!(rs485.flags & SER_RS485_ENABLED))
		return -EINVAL;
	return ttypair_rs485_set(tp, &rs485) ?: count;
}
