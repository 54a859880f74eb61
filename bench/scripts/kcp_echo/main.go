// kcp_echo - the KCP side of bench/scripts/rudp_vs.sh: an echo over kcp-go
// (the KCP implementation kcptun uses) with the workload netproof-bench
// rudp runs, so both can go through one `netproof-bench relay` process.
//
//	kcp_echo server --listen 127.0.0.1:PORT --max-seconds S [--fec D/P]
//	kcp_echo client --connect 127.0.0.1:PORT --clients N --window W \
//	         --payload B --warmup S --seconds S [--fec D/P]
//
// KCP runs in "fast mode" as kcp-go documents it (nodelay 1, interval
// 10 ms, fast resend after 2 later acks, no congestion window) and acks
// every input at once (SetACKNoDelay: kcp-go's flush after every input).
// --fec D/P adds kcp-go's Reed-Solomon FEC (D data, P parity shards);
// both ends must agree.
//
// The client keeps W messages outstanding on each of N sessions (message
// mode: one Write is one message); the server echoes each.  Every reply's
// bytes are compared with what was sent (client, sequence number and a
// pattern derived from both), replies must come back exactly once and in
// order.  Round trips completed inside the measured window and their
// latency percentiles are printed as one JSON object; any mismatch, loss
// or timeout is an error: exit 1.  Usage errors exit 2, runtime failures
// (socket, dial) exit 3.  Every loop is bounded: the server by
// --max-seconds, the client by warmup + seconds + a 5 s drain.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	kcp "github.com/xtaci/kcp-go" // GOPATH mode: Debian's v5 sources
)

const hdr = 16 // u32 client | u32 pad | u64 seq, then the pattern

type options struct {
	addr            string
	clients, window int
	payload         int
	warmup, seconds float64
	maxSeconds      float64
	data, parity    int
	mtu             int
}

func usage(msg string) {
	fmt.Fprintf(os.Stderr, "kcp_echo: %s\n", msg)
	os.Exit(2)
}

func parseFEC(s string) (int, int) {
	if s == "" || s == "none" {
		return 0, 0
	}
	p := strings.SplitN(s, "/", 2)
	if len(p) != 2 {
		usage("--fec: expected DATA/PARITY, e.g. 10/3, got '" + s + "'")
	}
	d, e1 := strconv.Atoi(p[0])
	q, e2 := strconv.Atoi(p[1])
	if e1 != nil || e2 != nil || d < 1 || q < 1 || d+q > 255 {
		usage("--fec: DATA and PARITY must be 1.. with DATA+PARITY <= 255, got '" + s + "'")
	}
	return d, q
}

// fastMode is KCP's documented fast setting plus an ack per input.
func fastMode(s *kcp.UDPSession, o *options) {
	s.SetNoDelay(1, 10, 2, 1)
	s.SetACKNoDelay(true)
	s.SetWriteDelay(false)
	s.SetStreamMode(false)
	s.SetWindowSize(128, 512) // netproof's send / receive windows
	s.SetMtu(o.mtu)
}

func fill(b []byte, client uint32, seq uint64) {
	binary.BigEndian.PutUint32(b[0:], client)
	binary.BigEndian.PutUint32(b[4:], 0)
	binary.BigEndian.PutUint64(b[8:], seq)
	x := uint32(seq)*2654435761 ^ client*40503
	for i := hdr; i < len(b); i++ {
		x = x*1103515245 + 12345
		b[i] = byte(x >> 16)
	}
}

func server(o *options) int {
	l, err := kcp.ListenWithOptions(o.addr, nil, o.data, o.parity)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kcp_echo server: listen %s: %v\n", o.addr, err)
		return 3
	}
	end := time.Now().Add(time.Duration(o.maxSeconds * float64(time.Second)))
	go func() { // the mandatory time bound
		time.Sleep(time.Until(end))
		l.Close()
	}()
	for {
		l.SetDeadline(end)
		s, err := l.AcceptKCP()
		if err != nil {
			return 0 // deadline or close: done
		}
		fastMode(s, o)
		go func(s *kcp.UDPSession) {
			defer s.Close()
			buf := make([]byte, 65536)
			for {
				s.SetReadDeadline(end)
				n, err := s.Read(buf)
				if err != nil {
					return
				}
				if _, err := s.Write(buf[:n]); err != nil {
					return
				}
			}
		}(s)
	}
}

type result struct {
	rts      uint64
	lat      []float64 // ms, round trips sent after warm-up
	err      string
	received uint64
}

func runClient(o *options, id uint32, start, measure, stop time.Time,
	res *result) {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		res.err = err.Error()
		return
	}
	s, err := kcp.NewConn(o.addr, nil, o.data, o.parity, conn)
	if err != nil {
		conn.Close()
		res.err = err.Error()
		return
	}
	defer conn.Close()
	defer s.Close()
	fastMode(s, o)
	sent := make([]time.Time, 0, 1024) // send times of outstanding seqs
	var next, want uint64
	msg := make([]byte, o.payload)
	exp := make([]byte, o.payload)
	buf := make([]byte, 65536)
	send := func() bool {
		fill(msg, id, next)
		sent = append(sent, time.Now())
		next++
		_, err := s.Write(msg)
		if err != nil {
			res.err = "write: " + err.Error()
			return false
		}
		return true
	}
	for i := 0; i < o.window; i++ {
		if !send() {
			return
		}
	}
	drain := stop.Add(5 * time.Second)
	for want < next {
		s.SetReadDeadline(drain)
		n, err := s.Read(buf)
		if err != nil {
			res.err = fmt.Sprintf("client %d: reply %d not received by the "+
				"drain deadline: %v", id, want, err)
			return
		}
		fill(exp, id, want)
		if n != o.payload || string(buf[:n]) != string(exp) {
			got := uint64(0)
			if n >= hdr {
				got = binary.BigEndian.Uint64(buf[8:])
			}
			off := 0
			for off < n && off < len(exp) && buf[off] == exp[off] {
				off++
			}
			res.err = fmt.Sprintf("client %d: reply %d: %d bytes (seq field "+
				"%d) differ from what was sent at byte %d", id, want, n, got, off)
			return
		}
		now := time.Now()
		t0 := sent[0]
		sent = sent[1:]
		want++
		res.received++
		if !t0.Before(measure) && now.Before(stop) {
			res.rts++
			res.lat = append(res.lat, float64(now.Sub(t0))/1e6)
		}
		if now.Before(stop) && !send() {
			return
		}
	}
	_ = start
}

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(v)))
	if i >= len(v) {
		i = len(v) - 1
	}
	return v[i]
}

func client(o *options) int {
	start := time.Now()
	measure := start.Add(time.Duration(o.warmup * float64(time.Second)))
	stop := measure.Add(time.Duration(o.seconds * float64(time.Second)))
	res := make([]result, o.clients)
	var wg sync.WaitGroup
	for i := 0; i < o.clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runClient(o, uint32(i), start, measure, stop, &res[i])
		}(i)
	}
	wg.Wait()
	var all []float64
	var rts, received uint64
	errs := []string{}
	for i := range res {
		rts += res[i].rts
		received += res[i].received
		all = append(all, res[i].lat...)
		if res[i].err != "" {
			errs = append(errs, res[i].err)
		}
	}
	sort.Float64s(all)
	sn := kcp.DefaultSnmp.Copy()
	fec := "none"
	if o.data > 0 {
		fec = fmt.Sprintf("%d/%d", o.data, o.parity)
	}
	out := map[string]interface{}{
		"transport": "kcp-go", "mode": "fast", "fec": fec,
		"clients": o.clients, "window": o.window, "payload": o.payload,
		"seconds": o.seconds, "round_trips": rts,
		"round_trips_total": received, // warm-up and drain included
		"round_trips_per_s": float64(rts) / o.seconds,
		"latency_ms": map[string]float64{
			"p50": pct(all, 50), "p90": pct(all, 90), "p99": pct(all, 99),
			"p999": pct(all, 99.9),
		},
		// the client side's counters (its requests and its acks)
		"client_counters": map[string]uint64{
			"out_segments": sn.OutSegs, "out_packets": sn.OutPkts,
			"out_bytes": sn.OutBytes, "retrans_segments": sn.RetransSegs,
			"fast_retrans_segments": sn.FastRetransSegs,
			"lost_segments":         sn.LostSegs, "repeat_segments": sn.RepeatSegs,
			"fec_recovered":       sn.FECRecovered,
			"fec_parity_received": sn.FECParityShards,
		},
		"errors": errs,
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "kcp_echo client: %s\n", e)
		}
		return 1
	}
	return 0
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "server" && os.Args[1] != "client") {
		usage("usage: kcp_echo server|client [options] (-h for the options)")
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet("kcp_echo "+mode, flag.ContinueOnError)
	o := &options{}
	fecs := ""
	fs.StringVar(&o.addr, "listen", "", "server: ADDR:PORT to listen on (loopback)")
	connect := fs.String("connect", "", "client: ADDR:PORT of the server or relay")
	fs.IntVar(&o.clients, "clients", 4, "client: sessions")
	fs.IntVar(&o.window, "window", 16, "client: messages outstanding per session")
	fs.IntVar(&o.payload, "payload", 1024, "client: message bytes (>= 16)")
	fs.Float64Var(&o.warmup, "warmup", 2, "client: warm-up seconds")
	fs.Float64Var(&o.seconds, "seconds", 5, "client: measured seconds")
	fs.Float64Var(&o.maxSeconds, "max-seconds", 60, "server: exit after this long")
	fs.IntVar(&o.mtu, "mtu", 1200, "KCP MTU (UDP payload bytes)")
	fs.StringVar(&fecs, "fec", "none", "none or DATA/PARITY Reed-Solomon shards")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() != 0 {
		usage("unexpected argument '" + fs.Arg(0) + "'")
	}
	o.data, o.parity = parseFEC(fecs)
	if mode == "client" {
		o.addr = *connect
	}
	if o.addr == "" {
		usage("--listen (server) or --connect (client) is required")
	}
	if o.clients < 1 || o.window < 1 || o.payload < hdr || o.payload > 60000 ||
		o.seconds <= 0 || o.warmup < 0 || o.seconds+o.warmup > 600 ||
		o.maxSeconds <= 0 || o.maxSeconds > 3600 || o.mtu < 100 || o.mtu > 1500 {
		usage("out of range: clients/window >= 1, payload 16..60000, " +
			"0 < seconds, warmup + seconds <= 600, 0 < max-seconds <= 3600, mtu 100..1500")
	}
	if mode == "server" {
		os.Exit(server(o))
	}
	os.Exit(client(o))
}
