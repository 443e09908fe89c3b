package design

// State is a layer's animatable properties at one time of its page.
type State struct {
	X, Y, Opacity, Rotation, Scale float64
}

// Base is the layer's own properties (its state without keyframes).
func (l Layer) Base() State {
	s := State{X: l.X, Y: l.Y, Opacity: 1, Rotation: l.Rotation, Scale: 1}
	if l.Opacity != nil {
		s.Opacity = *l.Opacity
	}
	return s
}

// At is the layer's state at ms into its page: each property follows the
// keyframes that set it (held before the first and after the last, eased
// between two by the earlier one's easing), else the layer's own value.
func (l Layer) At(ms int) State {
	s := l.Base()
	if len(l.Keyframes) == 0 {
		return s
	}
	s.X = track(l.Keyframes, ms, s.X, func(k Keyframe) *float64 { return k.X })
	s.Y = track(l.Keyframes, ms, s.Y, func(k Keyframe) *float64 { return k.Y })
	s.Opacity = track(l.Keyframes, ms, s.Opacity, func(k Keyframe) *float64 { return k.Opacity })
	s.Rotation = track(l.Keyframes, ms, s.Rotation, func(k Keyframe) *float64 { return k.Rotation })
	s.Scale = track(l.Keyframes, ms, s.Scale, func(k Keyframe) *float64 { return k.Scale })
	return s
}

// track is one property at ms along the keyframes that set it.
func track(ks []Keyframe, ms int, base float64, prop func(Keyframe) *float64) float64 {
	var prev *Keyframe
	for i := range ks {
		v := prop(ks[i])
		if v == nil {
			continue
		}
		if ks[i].AtMs >= ms {
			if prev == nil || ks[i].AtMs == ms {
				return *v
			}
			span := float64(ks[i].AtMs - prev.AtMs)
			t := ease(prev.Easing, float64(ms-prev.AtMs)/span)
			from := *prop(*prev)
			return from + (*v-from)*t
		}
		prev = &ks[i]
	}
	if prev != nil {
		return *prop(*prev)
	}
	return base
}

// ease maps linear progress 0..1 through an easing (docs/design.md):
// quadratic ease-in, ease-out and ease-in-out.
func ease(easing string, t float64) float64 {
	switch easing {
	case "ease-in":
		return t * t
	case "ease-out":
		return 1 - (1-t)*(1-t)
	case "ease-in-out":
		if t < 0.5 {
			return 2 * t * t
		}
		return 1 - 2*(1-t)*(1-t)
	}
	return t
}

// Moves reports whether any of the layers (or their children) is in a
// different state at b than at a: frames between equal states are equal.
func Moves(layers []Layer, a, b int) bool {
	for _, l := range layers {
		if len(l.Keyframes) > 0 && l.At(a) != l.At(b) {
			return true
		}
		if Moves(l.Children, a, b) {
			return true
		}
	}
	return false
}

// Animated reports whether any of the layers (or their children) has keyframes.
func Animated(layers []Layer) bool {
	for _, l := range layers {
		if len(l.Keyframes) > 0 || Animated(l.Children) {
			return true
		}
	}
	return false
}
