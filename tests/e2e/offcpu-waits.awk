# The off-CPU intervals `pp-analyze offcpu` prints for one thread through
# pp_wait_here (tests/helpers/bpf-waits): the sum of the "N times" of each
# stack headed by H ("COMM PID/TID state S:") that passes through it.
#   awk -v h="pp-waiter PID/TID state S:" -f offcpu-waits.awk OUT
/^[^ ]/ {
	if (on && hit)
		sum += n
	on = index($0, h) == 1
	hit = 0
	if (on) {
		n = $0
		sub(/ times.*/, "", n)
		sub(/.* /, "", n)
	}
	next
}
on && /pp_wait_here/ { hit = 1 }
END {
	if (on && hit)
		sum += n
	print sum + 0
}
