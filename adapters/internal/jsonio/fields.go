package jsonio

import (
	"reflect"
	"strings"
	"sync"
)

// reflectType is the struct type dst points to.
func reflectType(dst any) reflect.Type { return reflect.TypeOf(dst).Elem() }

// fieldNames are the json names of a struct type's fields, worked out once per type.
func fieldNames(t reflect.Type) map[string]bool {
	if names, ok := fieldNamesOf.Load(t); ok {
		return names.(map[string]bool)
	}
	names := make(map[string]bool, t.NumField())
	addFieldNames(t, names)
	fieldNamesOf.Store(t, names)
	return names
}

// addFieldNames adds t's json names to names, and those of its embedded structs, whose
// fields encoding/json promotes.
func addFieldNames(t reflect.Type, names map[string]bool) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFieldNames(f.Type, names)
			continue
		}
		if name != "" && name != "-" {
			names[name] = true
		}
	}
}

var fieldNamesOf sync.Map // reflect.Type -> map[string]bool, read-only once stored

// jsonPath is encoding/json's path of a field in t (UnmarshalTypeError.Field) as the
// client wrote it: without the Go names of the embedded structs it leads through, which
// encoding/json puts in ("seriesRequest.catch_up_limit" is catch_up_limit).
//
// A member of a map is named by the map's field ("tags", not "tags.customer"): its keys
// are the client's data, not fields, and encoding/json does not name them the same way
// on every path.
func jsonPath(t reflect.Type, path string) string {
	segs := strings.Split(path, ".")
	for len(segs) > 1 && t.Kind() == reflect.Struct {
		f, ok := t.FieldByName(segs[0])
		if !ok || !f.Anonymous || f.Tag.Get("json") != "" {
			break
		}
		segs, t = segs[1:], f.Type
	}
	for i, seg := range segs {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			break
		}
		f, ok := fieldByJSONName(t, seg)
		if !ok {
			break
		}
		if t = f.Type; t.Kind() == reflect.Map {
			return strings.Join(segs[:i+1], ".")
		}
	}
	return strings.Join(segs, ".")
}

// fieldByJSONName is the field of struct t (embedded structs' included) whose JSON name
// is name.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	return t.FieldByNameFunc(func(goName string) bool {
		f, _ := t.FieldByName(goName)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return tag == name || tag == "" && goName == name
	})
}

// typeMessage says what a field of Go type t accepts, in JSON terms, and what came.
// value is UnmarshalTypeError.Value: a JSON kind ("string", "array"), or for a number
// that does not fit, "number <literal>".
func typeMessage(t reflect.Type, value string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	got, isNumber := strings.CutPrefix(value, "number ")
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if isNumber {
			return "must be an integer in range, got " + got
		}
		return "must be an integer, got " + value
	case reflect.Float32, reflect.Float64:
		if isNumber {
			return "is out of range: " + got
		}
		return "must be a number, got " + value
	case reflect.String:
		return "must be a string, got " + value
	case reflect.Bool:
		return "must be true or false, got " + value
	default:
		return "must be a JSON " + t.Kind().String() + ", got " + value
	}
}
