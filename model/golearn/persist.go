package golearn

import (
	"errors"
	"fmt"

	"github.com/landmark-ml/landmark/model"
	"github.com/sjwhitworth/golearn/base"
)

// The keys an adapter writes under its prefix of a golearn model file.
const (
	keyAdapter = "LANDMARK_ADAPTER" // JSON adapterInfo
	keyModel   = "LANDMARK_MODEL"   // the estimator in model.Save's format
	keyFeature = "FEATURES"         // the feature attributes, in model column order
	keyClass   = "CLASS"            // the class attribute
	keyValues  = "CLASS_VALUES"     // JSON categorical class values (null for float)
)

// adapterVersion is the version of the adapter's key layout.
const adapterVersion = 1

// adapterInfo identifies an adapter's entries in a golearn model file.
type adapterInfo struct {
	Kind      string `json:"kind"`
	Version   int    `json:"version"`
	Estimator string `json:"estimator"`
}

// ErrWrongKind is returned when loading a Regressor's file into a Classifier
// or the other way round, or a file of another golearn classifier.
var ErrWrongKind = errors.New("saved model is of another kind")

func metadata(kind string, est model.Estimator) base.ClassifierMetadataV1 {
	return base.ClassifierMetadataV1{
		FormatVersion:      1,
		ClassifierName:     "landmark." + kind,
		ClassifierVersion:  fmt.Sprint(adapterVersion),
		ClassifierMetadata: map[string]interface{}{"estimator": fmt.Sprintf("%T", est)},
	}
}

func save(w *base.ClassifierSerializer, prefix string, meta base.ClassifierMetadataV1, est model.Estimator, s *schema) error {
	if s == nil || est == nil {
		return fmt.Errorf("golearn: save: %w", model.ErrNotFitted)
	}
	blob, err := model.Marshal(est)
	if err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	info := adapterInfo{Kind: meta.ClassifierName, Version: adapterVersion, Estimator: fmt.Sprintf("%T", est)}
	if err := w.WriteJSONForKey(w.Prefix(prefix, keyAdapter), info); err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	if err := w.WriteBytesForKey(w.Prefix(prefix, keyModel), blob); err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	if err := w.WriteAttributesForKey(w.Prefix(prefix, keyFeature), s.Features); err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	if err := w.WriteAttributeForKey(w.Prefix(prefix, keyClass), s.Class); err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	if err := w.WriteJSONForKey(w.Prefix(prefix, keyValues), s.Values); err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	return nil
}

func load(r *base.ClassifierDeserializer, prefix, kind string) (model.Estimator, *schema, error) {
	var info adapterInfo
	if err := r.GetJSONForKey(r.Prefix(prefix, keyAdapter), &info); err != nil {
		return nil, nil, fmt.Errorf("golearn: load: %w: no Landmark adapter at prefix %q: %v", ErrWrongKind, prefix, err)
	}
	if info.Kind != "landmark."+kind {
		return nil, nil, fmt.Errorf("golearn: load: %w: the file holds a %s, not a landmark.%s", ErrWrongKind, info.Kind, kind)
	}
	if info.Version != adapterVersion {
		return nil, nil, fmt.Errorf("golearn: load: %w: adapter layout version %d, this build reads %d", model.ErrVersion, info.Version, adapterVersion)
	}
	blob, err := r.GetBytesForKey(r.Prefix(prefix, keyModel))
	if err != nil {
		return nil, nil, fmt.Errorf("golearn: load: %w", err)
	}
	est, err := model.Unmarshal(blob)
	if err != nil {
		return nil, nil, fmt.Errorf("golearn: load: %w", err)
	}
	s := &schema{}
	if s.Features, err = r.GetAttributesForKey(r.Prefix(prefix, keyFeature)); err != nil {
		return nil, nil, fmt.Errorf("golearn: load: features: %w", err)
	}
	if s.Class, err = r.GetAttributeForKey(r.Prefix(prefix, keyClass)); err != nil {
		return nil, nil, fmt.Errorf("golearn: load: class: %w", err)
	}
	if err := r.GetJSONForKey(r.Prefix(prefix, keyValues), &s.Values); err != nil {
		return nil, nil, fmt.Errorf("golearn: load: class values: %w", err)
	}
	_, categorical := s.Class.(*base.CategoricalAttribute)
	if len(s.Features) == 0 || categorical != (s.Values != nil) {
		return nil, nil, fmt.Errorf("golearn: load: %w: %d features, class %T with %d values", model.ErrFormat, len(s.Features), s.Class, len(s.Values))
	}
	return est, s, nil
}

func saveFile(path string, meta base.ClassifierMetadataV1, saveTo func(*base.ClassifierSerializer, string) error) error {
	w, err := base.CreateSerializedClassifierStub(path, meta)
	if err != nil {
		return fmt.Errorf("golearn: save: %w", err)
	}
	err = saveTo(w, "")
	if cerr := w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("golearn: save: %w", cerr)
	}
	return err
}

func loadFile(path string, loadFrom func(*base.ClassifierDeserializer, string) error) error {
	r, err := base.ReadSerializedClassifierStub(path)
	if err != nil {
		return fmt.Errorf("golearn: load: %w", err)
	}
	defer r.Close()
	return loadFrom(r, "")
}
