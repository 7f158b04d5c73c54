//! Operator boilerplate shared by the backend newtypes (`Scalar(inner)`, `Point(inner)`): every
//! backend type supports the same operators, so the wrappers forward them through `.0`.

/// Forwards `Add`, `Sub`, `Mul` (by value and by reference), `Neg`, the assigning forms and
/// `Sum` of a scalar newtype to its inner field element.
macro_rules! scalar_newtype_ops {
    ($S:ident) => {
        impl core::ops::Add for $S {
            type Output = $S;
            #[inline]
            fn add(self, rhs: $S) -> $S {
                $S(self.0 + rhs.0)
            }
        }
        impl core::ops::Add<&$S> for $S {
            type Output = $S;
            #[inline]
            fn add(self, rhs: &$S) -> $S {
                $S(self.0 + rhs.0)
            }
        }
        impl core::ops::Sub for $S {
            type Output = $S;
            #[inline]
            fn sub(self, rhs: $S) -> $S {
                $S(self.0 - rhs.0)
            }
        }
        impl core::ops::Mul for $S {
            type Output = $S;
            #[inline]
            fn mul(self, rhs: $S) -> $S {
                $S(self.0 * rhs.0)
            }
        }
        impl core::ops::Mul<&$S> for $S {
            type Output = $S;
            #[inline]
            fn mul(self, rhs: &$S) -> $S {
                $S(self.0 * rhs.0)
            }
        }
        impl core::ops::Neg for $S {
            type Output = $S;
            #[inline]
            fn neg(self) -> $S {
                $S(-self.0)
            }
        }
        impl core::ops::AddAssign for $S {
            #[inline]
            fn add_assign(&mut self, rhs: $S) {
                self.0 += rhs.0;
            }
        }
        impl core::ops::SubAssign for $S {
            #[inline]
            fn sub_assign(&mut self, rhs: $S) {
                self.0 -= rhs.0;
            }
        }
        impl core::ops::MulAssign for $S {
            #[inline]
            fn mul_assign(&mut self, rhs: $S) {
                self.0 *= rhs.0;
            }
        }
        impl core::iter::Sum for $S {
            fn sum<I: Iterator<Item = $S>>(iter: I) -> $S {
                iter.fold(<$S as crate::traits::Scalar>::zero(), |acc, s| acc + s)
            }
        }
    };
}

/// Forwards `Add` (by value and by reference), `Sub`, `Neg`, `+=`, `-=` and `Sum` of a point
/// newtype. Scalar multiplication differs per backend and stays with each implementation.
macro_rules! point_newtype_ops {
    ($P:ident) => {
        impl core::ops::Add for $P {
            type Output = $P;
            #[inline]
            fn add(self, rhs: $P) -> $P {
                $P(self.0 + rhs.0)
            }
        }
        impl core::ops::Add<&$P> for $P {
            type Output = $P;
            #[inline]
            fn add(self, rhs: &$P) -> $P {
                $P(self.0 + rhs.0)
            }
        }
        impl core::ops::Sub for $P {
            type Output = $P;
            #[inline]
            fn sub(self, rhs: $P) -> $P {
                $P(self.0 - rhs.0)
            }
        }
        impl core::ops::Neg for $P {
            type Output = $P;
            #[inline]
            fn neg(self) -> $P {
                $P(-self.0)
            }
        }
        impl core::ops::AddAssign for $P {
            #[inline]
            fn add_assign(&mut self, rhs: $P) {
                self.0 += rhs.0;
            }
        }
        impl core::ops::SubAssign for $P {
            #[inline]
            fn sub_assign(&mut self, rhs: $P) {
                self.0 -= rhs.0;
            }
        }
        impl core::iter::Sum for $P {
            fn sum<I: Iterator<Item = $P>>(iter: I) -> $P {
                iter.fold(<$P as crate::traits::Group>::identity(), |acc, p| acc + p)
            }
        }
    };
}
