// clientgo-informer: the informer every Go operator (and k9s) is built on, as a peer in
// `./dev bench --server ...` (tests/bench/peerrace.cpp).
//
//	clientgo-informer --kubeconfig FILE --group G --version V --resource R [--namespace NS]
//	                  [--expect N] [--watch-list default|on|off] [--timeout 10m]
//
// A dynamic shared informer factory (dynamicinformer, unstructured objects, no resync) is started
// for one resource; the clock runs from Start to WaitForCacheSync. One JSON line goes to stdout:
// seconds, objects in the store, the process's CPU seconds and peak RSS, and how the store was
// filled — "watch_list" is true when the reflector used a streaming watch-list (a watch with
// sendInitialEvents=true) and made no list request. --watch-list sets client-go's WatchListClient
// feature gate (default: what this client-go release does unasked). Exit 0 only when the cache
// synced with --expect objects (when given); 2 for bad arguments.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// A flag error the flag package has already printed, with the usage.
var errReported = errors.New("reported")

type options struct {
	kubeconfig string
	gvr        schema.GroupVersionResource
	namespace  string
	expect     int
	watchList  string
	timeout    time.Duration
}

func parseArgs(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("clientgo-informer", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the server (required)")
	fs.StringVar(&o.gvr.Group, "group", "", "API group of the resource (empty for the core group)")
	fs.StringVar(&o.gvr.Version, "version", "v1", "API version")
	fs.StringVar(&o.gvr.Resource, "resource", "", "resource, plural (required)")
	fs.StringVar(&o.namespace, "namespace", "", "one namespace (default all)")
	fs.IntVar(&o.expect, "expect", -1, "objects the synced store must hold (default: any)")
	fs.StringVar(&o.watchList, "watch-list", "default", "WatchListClient feature gate: default, on or off")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return o, errReported
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.kubeconfig == "":
		return o, errors.New("--kubeconfig is required")
	case o.gvr.Resource == "":
		return o, errors.New("--resource is required")
	case o.watchList != "default" && o.watchList != "on" && o.watchList != "off":
		return o, fmt.Errorf("--watch-list %q: expected default, on or off", o.watchList)
	case o.timeout <= 0:
		return o, errors.New("--timeout must be positive")
	}
	return o, nil
}

// Counts the requests the reflector makes, by kind, to tell a streaming watch-list from a list.
type requestCounter struct {
	next              http.RoundTripper
	lists             atomic.Int64
	watches           atomic.Int64
	initialEventWatch atomic.Int64
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	switch {
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		c.watches.Add(1)
		if q.Get("sendInitialEvents") == "true" {
			c.initialEventWatch.Add(1)
		}
	case r.Method == http.MethodGet && !strings.Contains(r.URL.Path, "/"+"version"):
		c.lists.Add(1)
	}
	return c.next.RoundTrip(r)
}

func cpuSeconds() float64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

// The process's peak resident memory, bytes (ru_maxrss is in KiB on Linux).
func peakRSS() int64 {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return u.Maxrss * 1024
}

func run(o options) (map[string]any, error) {
	switch o.watchList {
	case "on":
		os.Setenv("KUBE_FEATURE_WatchListClient", "true")
	case "off":
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	}
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, err
	}
	counter := &requestCounter{}
	config.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		counter.next = rt
		return counter
	})
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	baselineRSS := peakRSS()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, o.namespace, nil)
	informer := factory.ForResource(o.gvr).Informer()
	cpuBefore := cpuSeconds()
	started := time.Now()
	factory.Start(ctx.Done())
	synced := cache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
	seconds := time.Since(started).Seconds()
	cpu := cpuSeconds() - cpuBefore
	objects := len(informer.GetStore().ListKeys())
	out := map[string]any{
		"seconds":                seconds,
		"synced":                 synced,
		"objects":                objects,
		"cpu_seconds":            cpu,
		"process_cpu_seconds":    cpuSeconds(),
		"peak_rss_bytes":         peakRSS(),
		"baseline_rss_bytes":     baselineRSS,
		"watch_list_gate":        clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient),
		"watch_list":             counter.initialEventWatch.Load() > 0 && counter.lists.Load() == 0,
		"list_requests":          counter.lists.Load(),
		"watch_requests":         counter.watches.Load(),
		"initial_events_watches": counter.initialEventWatch.Load(),
	}
	cancel()
	factory.Shutdown()
	if !synced {
		return out, fmt.Errorf("the cache did not sync within %s", o.timeout)
	}
	if o.expect >= 0 && objects != o.expect {
		return out, fmt.Errorf("the synced store holds %d objects, expected %d", objects, o.expect)
	}
	return out, nil
}

func main() {
	o, err := parseArgs(os.Args[1:])
	if err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, "clientgo-informer:", err)
		}
		os.Exit(2)
	}
	out, err := run(o)
	if out != nil {
		line, _ := json.Marshal(out)
		fmt.Println(string(line))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientgo-informer:", err)
		os.Exit(1)
	}
}
