/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the guest's functional tests: the test table, failure
 * reporting, opening ports, and a repeatable byte stream to check transfers.
 */
#ifndef TLIB_H
#define TLIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

struct test {
	const char *name;
	int (*fn)(void);	/* 0 = pass; fail() explains a failure */
	unsigned int timeout;	/* seconds */
};

extern int npairs;		/* pairs the module was loaded with */

/* Record why the running test fails; returns -1 for "return fail(...)". */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Open end 'A' or 'B' of pair idx, raw 8-bit, no controlling tty. */
int port_open(char end, int idx, int flags);
/* Open without changing any setting. */
int port_open_plain(char end, int idx, int flags);
int set_nonblock(int fd, int on);
/* Bytes ready to read within ms milliseconds; -1 on error. */
int readable(int fd, int ms);
int writable(int fd, int ms);
/* Read exactly n bytes or fail after ms milliseconds without progress. */
ssize_t read_full(int fd, void *buf, size_t n, int ms);
ssize_t write_full(int fd, const void *buf, size_t n);
/*
 * Read up to n bytes, waiting up to ms for each; returns how many came
 * (fewer on a timeout, an error or end of file). Does not fail().
 */
size_t read_upto(int fd, void *buf, size_t n, int ms);
/* Read and discard whatever is readable now. */
size_t drain(int fd);
void msleep(unsigned int ms);
double now(void);

/*
 * Threads that wait in the kernel. A thread stores its id (thread_id())
 * where the test can see it before it makes its blocking call;
 * thread_blocked() then waits up to ms for that thread to be asleep
 * (state S in /proc/self/task/<tid>/stat) inside system call nr (-1: any;
 * from /proc/self/task/<tid>/syscall), so that what the test does next
 * happens while the call really waits, not before it began. *tid may
 * still be 0 when it is called. 0, or -1 after fail() naming what.
 */
pid_t thread_id(void);
int thread_blocked(const pid_t *tid, long nr, int ms, const char *what);
/* 1 if thread tid sleeps in system call nr (-1: any) now, else 0 */
int thread_sleeping(pid_t tid, long nr);
/* The system call behind poll(): poll, or ppoll where there is none */
#ifdef SYS_poll
#define SYS_POLL_CALL	SYS_poll
#else
#define SYS_POLL_CALL	SYS_ppoll
#endif

/* A repeatable pseudo-random byte stream. */
struct stream {
	uint64_t state;
	uint64_t pos;
};
void stream_init(struct stream *s, uint64_t seed);
void stream_fill(struct stream *s, unsigned char *buf, size_t n);
/* Check n received bytes against the stream; on mismatch fail() with offset. */
int stream_check(struct stream *s, const unsigned char *buf, size_t n);
uint32_t rnd(uint64_t *state);

/*
 * The groups of tests, each a table ending with { NULL }: data_tests in
 * ttypair-test.c, modem_tests in modem-tests.c (modem lines, carrier,
 * hangup, break), line_tests in line-tests.c (line settings, strict mode,
 * baud-rate emulation, error injection, serial ioctls), hardening_tests in
 * hardening-tests.c (numbers at their limits, defects found in review),
 * rs485_tests in rs485-tests.c (RS-485 mode, line status), bus_tests in
 * bus-tests.c (buses of ports), session_tests in session-tests.c (the
 * session device).
 */
extern const struct test data_tests[], modem_tests[], line_tests[],
	hardening_tests[], rs485_tests[], bus_tests[], session_tests[];

/*
 * sysfs attributes of an end (/sys/class/tty/ttyVP<end><idx>/<attr>).
 * attr_write() returns 0 or -errno of the write; attr_read() reads the
 * value without its trailing newline into buf and returns 0 or -errno.
 */
int attr_write(char end, int idx, const char *attr, const char *val);
int attr_read(char end, int idx, const char *attr, char *buf, size_t len);
/* The same for any file: one write(2) of val; a read without its newline */
int file_write(const char *path, const char *val);
int file_read(const char *path, char *buf, size_t len);
/* configfs mounted on /sys/kernel/config, with ttypair's directory: 0 or -1 after fail() */
int configfs_mounted(void);
/* TIOCMGET of fd, or -1 after fail() */
int modem_get(int fd);
/* Apply (or change) termios settings; 0 or -1 after fail(). */
int set_cflag(int fd, unsigned int clear, unsigned int set);
int set_iflag(int fd, unsigned int clear, unsigned int set);
int set_speed(int fd, unsigned int speed);	/* a Bxxx constant */
/* Output and input speed in bits/s (BOTHER; input 0: the output's) */
int set_speed_any(int fd, unsigned int ospeed, unsigned int ispeed);

#endif
