package datasets

import "testing"

func TestReadSharedCadata(t *testing.T) {
	p, ok := SharedPath("cadata.libsvm.gz")
	if !ok {
		t.Skip("shared datasets absent")
	}
	d, err := ReadLIBSVMFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 20640 || d.Dim() != 8 {
		t.Fatalf("cadata: %d×%d, MANIFEST says 20640×8", d.Len(), d.Dim())
	}
}
