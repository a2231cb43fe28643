// Command strategicmerge records, and checks, the expectations of the strategic merge patch cases in
// tests/cluster/data/strategicmerge: what k8s.io/apimachinery's strategicpatch gives for each case,
// its errors mapped to a Status the way kube-apiserver's patch handler maps them.
//
//	strategicmerge record FILE...   recompute every case's expectation and rewrite FILE
//	strategicmerge check FILE...    recompute and report the cases whose expectation differs
//
// A case is {"name","group","kind","original","patch"} plus its expectation: "result" (the patched
// object), "error" ({"code","message","reason"}), or "outcomes" (a list of those) when upstream's
// answer depends on the order Go iterates the patch's maps in.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

// expectationFields are the members of a case that record replaces; all others are kept as written.
var expectationFields = []string{"result", "error", "outcomes"}

// dataStructs are the schema reference objects kube-apiserver passes for each group and kind.
var dataStructs = map[string]func() interface{}{
	"/ConfigMap":                func() interface{} { return &corev1.ConfigMap{} },
	"/Namespace":                func() interface{} { return &corev1.Namespace{} },
	"/Pod":                      func() interface{} { return &corev1.Pod{} },
	"/Secret":                   func() interface{} { return &corev1.Secret{} },
	"/Service":                  func() interface{} { return &corev1.Service{} },
	"/ServiceAccount":           func() interface{} { return &corev1.ServiceAccount{} },
	"apps/Deployment":           func() interface{} { return &appsv1.Deployment{} },
	"apps/ReplicaSet":           func() interface{} { return &appsv1.ReplicaSet{} },
	"coordination.k8s.io/Lease": func() interface{} { return &coordinationv1.Lease{} },
}

// minRuns is how often each case is patched; a case that gave more than one outcome is patched
// until minRuns runs in a row gave no new one. Go starts iterating a small map at a random one of
// its 8 slots, so an order-dependent outcome can come as rarely as 1 run in 8 (measured: 0.107 for
// the rarest outcome in generated.json): 64 runs would miss it with a chance of 7e-4 a case,
// 256 runs with less than 1e-14.
var minRuns = 256

func main() {
	flag.IntVar(&minRuns, "runs", minRuns, "patch each case at least this many times")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: strategicmerge [-runs N] record|check FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 || (flag.Arg(0) != "record" && flag.Arg(0) != "check") {
		flag.Usage()
		os.Exit(2)
	}
	write := flag.Arg(0) == "record"
	failed := false
	for _, path := range flag.Args()[1:] {
		differ, err := processFile(path, write)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(2)
		}
		failed = failed || (differ > 0 && !write)
	}
	if failed {
		os.Exit(1)
	}
}

// caseFile is a case file as read: its cases with their members' text as written, and its layout.
type caseFile struct {
	cases  []map[string]json.RawMessage
	indent string // "" for one line, else the indent of one level
}

func readCaseFile(path string) (*caseFile, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &caseFile{}
	if err := json.Unmarshal(text, &f.cases); err != nil {
		return nil, err
	}
	if lines := strings.SplitN(string(text), "\n", 3); len(lines) > 1 {
		f.indent = lines[1][:len(lines[1])-len(strings.TrimLeft(lines[1], " \t"))]
		if f.indent == "" {
			return nil, errors.New("multi-line file whose second line is not indented")
		}
	}
	return f, nil
}

// encode is json.Marshal without HTML escaping, as the case files are written.
func encode(v interface{}) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (f *caseFile) write(path string) error {
	// A map's members are written in key order, as the files have them.
	text, err := encode(f.cases)
	if err != nil {
		return err
	}
	if f.indent != "" {
		var out bytes.Buffer
		if err := json.Indent(&out, text, "", f.indent); err != nil {
			return err
		}
		text = out.Bytes()
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	// Written beside the file and renamed over it, so that a failed write leaves it whole.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, text, info.Mode().Perm()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// processFile recomputes every case of the file, reports those whose expectation differs, and
// with write rewrites the file with the recomputed expectations. It returns how many differ.
func processFile(path string, write bool) (int, error) {
	f, err := readCaseFile(path)
	if err != nil {
		return 0, err
	}
	expectations := make([]map[string]json.RawMessage, len(f.cases))
	errs := make([]error, len(f.cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				expectations[i], errs[i] = expectationOf(f.cases[i])
			}
		}()
	}
	for i := range f.cases {
		next <- i
	}
	close(next)
	wg.Wait()

	differ, multi := 0, 0
	for i, c := range f.cases {
		if errs[i] != nil {
			return 0, fmt.Errorf("case %d (%s): %v", i, c["name"], errs[i])
		}
		if _, ok := expectations[i]["outcomes"]; ok {
			multi++
		}
		if !sameExpectation(c, expectations[i]) {
			differ++
			fmt.Printf("%s: %s: recorded %s\n  upstream %s\n", path, c["name"],
				expectationText(c), expectationText(expectations[i]))
		}
		for _, k := range expectationFields {
			delete(c, k)
		}
		for k, v := range expectations[i] {
			c[k] = v
		}
	}
	fmt.Printf("%s: %d cases, %d agree, %d differ (%d with more than one outcome)\n", path,
		len(f.cases), len(f.cases)-differ, differ, multi)
	if write {
		return differ, f.write(path)
	}
	return differ, nil
}

// expectationOf patches the case until minRuns runs in a row gave no new outcome and gives its
// expectation: {"result"} or {"error"} when every run agreed, else {"outcomes"}: in the recorded
// order when the recorded outcomes are the same ones (which run gives which first is chance), else
// sorted by their text, so that recording twice writes the same file.
func expectationOf(c map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	var group, kind string
	if g, ok := c["group"]; ok {
		if err := json.Unmarshal(g, &group); err != nil {
			return nil, err
		}
	}
	if err := json.Unmarshal(c["kind"], &kind); err != nil {
		return nil, err
	}
	newStruct, ok := dataStructs[group+"/"+kind]
	if !ok {
		return nil, fmt.Errorf("no Go type for group %q kind %q", group, kind)
	}
	var outcomes [][]byte
	seen := map[string]bool{}
	for runsSinceNew := 0; runsSinceNew < minRuns; {
		outcome, err := patchOnce(c["original"], c["patch"], newStruct())
		if err != nil {
			return nil, err
		}
		if seen[string(outcome)] {
			runsSinceNew++
			continue
		}
		seen[string(outcome)] = true
		outcomes = append(outcomes, outcome)
		runsSinceNew = 0
	}
	if len(outcomes) == 1 {
		var single map[string]json.RawMessage
		err := json.Unmarshal(outcomes[0], &single)
		return single, err
	}
	if recorded := recordedOutcomes(c); sameSet(recorded, outcomes) {
		outcomes = recorded
	} else {
		sort.Slice(outcomes, func(i, j int) bool { return bytes.Compare(outcomes[i], outcomes[j]) < 0 })
	}
	list, err := encode(rawList(outcomes))
	return map[string]json.RawMessage{"outcomes": list}, err
}

// patchOnce does what kube-apiserver's strategicPatchObject does up to the patched map: the
// patch decoded with kjson.UnmarshalCaseSensitivePreserveInts (integers as int64), merged into the
// original with strategicpatch.StrategicMergeMapPatch and the kind's Go type as schema, a failure
// turned into a Status. The original is decoded the same way, as JSON and not through the Go type,
// so its unknown fields stay (kube-apiserver's runtime.DefaultUnstructuredConverter.ToUnstructured
// of the stored object gives int64 integers too, but drops them). It gives the outcome as
// {"result":...} or {"error":{...}}, or an error when the case itself is malformed.
func patchOnce(originalText, patchText json.RawMessage, dataStruct interface{}) ([]byte, error) {
	original := map[string]interface{}{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(originalText, &original); err != nil {
		return nil, fmt.Errorf("original: %v", err)
	}
	patch := map[string]interface{}{}
	var patched map[string]interface{}
	err := kjson.UnmarshalCaseSensitivePreserveInts(patchText, &patch)
	if err != nil {
		err = apierrors.NewBadRequest(err.Error())
	} else {
		patched, err = strategicpatch.StrategicMergeMapPatch(original, patch, dataStruct)
		err = interpretStrategicMergePatchError(err)
	}
	if err != nil {
		return encode(map[string]interface{}{"error": errorToStatus(err)})
	}
	return encode(map[string]interface{}{"result": patched})
}

// interpretStrategicMergePatchError is kube-apiserver's (handlers/patch.go): the errors it names,
// compared by identity, become a 400 or a 422; any other error is passed on as it is.
func interpretStrategicMergePatchError(err error) error {
	switch err {
	case nil:
		return nil
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList,
		mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "",
			schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}

// errorToStatus is the code, reason and message of the Status that kube-apiserver's
// responsewriters.ErrorToAPIStatus makes of err: a StatusError's own (a 500 when it has no code),
// else a 500 with no reason and the error's text.
func errorToStatus(err error) map[string]interface{} {
	if statusErr, ok := err.(apierrors.APIStatus); ok {
		s := statusErr.Status()
		code := s.Code
		if code == 0 {
			code = http.StatusInternalServerError
		}
		return map[string]interface{}{"code": code, "reason": string(s.Reason), "message": s.Message}
	}
	return map[string]interface{}{"code": http.StatusInternalServerError, "reason": "", "message": err.Error()}
}

func rawList(items [][]byte) []json.RawMessage {
	list := make([]json.RawMessage, len(items))
	for i, item := range items {
		list[i] = item
	}
	return list
}

// canonical is a JSON text compacted and re-encoded with sorted keys and numbers as written, so
// that two expectations compare as text.
func canonical(text []byte) string {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return "invalid JSON: " + err.Error()
	}
	out, err := encode(v)
	if err != nil {
		return "unencodable JSON: " + err.Error()
	}
	return string(out)
}

func recordedOutcomes(c map[string]json.RawMessage) [][]byte {
	if text, ok := c["outcomes"]; ok {
		var list []json.RawMessage
		if json.Unmarshal(text, &list) != nil {
			return nil
		}
		out := make([][]byte, len(list))
		for i, item := range list {
			out[i] = item
		}
		return out
	}
	single := map[string]json.RawMessage{}
	for _, k := range []string{"result", "error"} {
		if v, ok := c[k]; ok {
			single[k] = v
		}
	}
	if len(single) != 1 {
		return nil
	}
	text, _ := encode(single)
	return [][]byte{text}
}

// sameSet is whether the two lists hold the same outcomes, in any order.
func sameSet(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	canon := func(list [][]byte) []string {
		out := make([]string, len(list))
		for i, item := range list {
			out[i] = canonical(item)
		}
		sort.Strings(out)
		return out
	}
	ca, cb := canon(a), canon(b)
	for i := range ca {
		if ca[i] != cb[i] {
			return false
		}
	}
	return true
}

// sameExpectation is whether the case records the computed expectation: the same single outcome,
// or the same set of outcomes (the order in which runs give them is chance).
func sameExpectation(c, computed map[string]json.RawMessage) bool {
	_, recordedMulti := c["outcomes"]
	_, computedMulti := computed["outcomes"]
	return recordedMulti == computedMulti && sameSet(recordedOutcomes(c), recordedOutcomes(computed))
}

func expectationText(c map[string]json.RawMessage) string {
	outcomes := recordedOutcomes(c)
	if outcomes == nil {
		return "nothing"
	}
	parts := make([]string, len(outcomes))
	for i, o := range outcomes {
		parts[i] = canonical(o)
	}
	return strings.Join(parts, "\n  or ")
}
