package load

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// clockTicksPerSecond is USER_HZ, the unit of the CPU times in /proc/PID/stat. It
// is 100 on every Linux architecture Go supports.
const clockTicksPerSecond = 100

// procRSS returns the resident set size of process pid in bytes, from the VmRSS
// line of /proc/PID/status.
func procRSS(pid int) (int64, error) {
	return procStatusKB(pid, "VmRSS:")
}

// procPeakRSS returns the peak resident set size of process pid in bytes (VmHWM).
func procPeakRSS(pid int) (int64, error) {
	return procStatusKB(pid, "VmHWM:")
}

// procStatusKB reads one "Name:   123 kB" line of /proc/PID/status, in bytes.
func procStatusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(b, field)
}

// parseStatusKB finds field in the text of /proc/PID/status and returns its value
// in bytes.
func parseStatusKB(status []byte, field string) (int64, error) {
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte(field))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) < 1 {
			break
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q: %w", field, rest, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("no %s line in /proc status", field)
}

// procCPU returns the CPU time process pid has used, user plus system, in seconds,
// from fields 14 and 15 of /proc/PID/stat.
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU extracts utime+stime from the text of /proc/PID/stat. The second
// field (the command name, in parentheses) may contain spaces, so fields are counted
// from the last ')'.
func parseStatCPU(stat []byte) (float64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc stat: %q", stat)
	}
	f := bytes.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed /proc stat: %d fields", len(f)+2)
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed /proc stat times %q %q", f[11], f[12])
	}
	return float64(ut+st) / clockTicksPerSecond, nil
}
