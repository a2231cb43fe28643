// Command protobuffixtures encodes the protobuf request-body fixtures of
// tests/cluster/data/protobuf with upstream's own codecs: for each <name>.input.json it writes
// <name>.pb (what a client-go typed client sends: "k8s\0" + runtime.Unknown) and <name>.json
// (what the typed JSON encoder writes for the same object), the pair tst_protobufbody compares.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

func main() {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := appsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	// Strict, so that a typo in an input is an error instead of a field silently dropped.
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Strict: true})
	jsonEncoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Pretty: true})
	pbEncoder := protobuf.NewSerializer(scheme, scheme)
	for _, input := range os.Args[1:] {
		if err := encode(input, decoder, jsonEncoder, pbEncoder); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", input, err)
			os.Exit(1)
		}
	}
}

func encode(input string, decoder, jsonEncoder, pbEncoder runtime.Serializer) error {
	data, err := os.ReadFile(input)
	if err != nil {
		return err
	}
	obj, _, err := decoder.Decode(data, nil, nil)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(input, ".input.json")
	var pb, js bytes.Buffer
	if err := pbEncoder.Encode(obj, &pb); err != nil {
		return err
	}
	if err := jsonEncoder.Encode(obj, &js); err != nil {
		return err
	}
	if err := os.WriteFile(base+".pb", pb.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".json", js.Bytes(), 0o644)
}
