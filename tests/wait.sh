# wait.sh — sourced by the shell suites that watch a running program.
# wait_for FILE PATTERN SECONDS: 0 when PATTERN appears in FILE in time;
# leaves the polls taken (50 ms each) in i, so callers can print the wait.
wait_for() {
    i=0; n=$(($3 * 20))
    while [ "$i" -lt "$n" ]; do
        grep -qF "$2" "$1" 2>/dev/null && return 0
        sleep 0.05; i=$((i + 1))
    done
    return 1
}
