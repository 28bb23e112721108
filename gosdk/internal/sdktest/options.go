package sdktest

import "reflect"

// SetField sets the field name of the struct *ptr (an SDK options struct)
// to value and reports whether the struct has that field. The tests run
// against every go-sdk release from the module's floor on, and an option
// added later cannot be named in a struct literal there: a test sets it
// here and skips, naming the release, when it is missing.
func SetField(ptr any, name string, value any) bool {
	f := reflect.ValueOf(ptr).Elem().FieldByName(name)
	if !f.IsValid() || !f.CanSet() {
		return false
	}
	f.Set(reflect.ValueOf(value))
	return true
}
