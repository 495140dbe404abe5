//! A figure's parameters with their type erased, and typed access to them.
//!
//! The shell keeps every figure's parameters in the same kind of signal, a
//! signal of [`Cell`], so that its code (the figure's frame, the comparison,
//! the controls, the URL writer) and the reactive graph's code for that
//! signal exist once in the bundle rather than once per figure. A figure's
//! own code reads and moves its parameters through [`Cells`], typed, as it
//! would a signal of them.

use std::any::Any;
use std::marker::PhantomData;

use leptos::prelude::*;

use super::figure::Params;
use super::memory_bar::MemoryBarData;
use super::param::{self, Assumed};
use crate::hooks::{use_scoped, Scoped};
use crate::model::memory::BytesPerParam;
use crate::model::query::Pairs;
use crate::widgets::ReadoutData;

/// What the shell asks of a figure's parameters, whatever their type.
pub trait AnyParams: Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn clone_cell(&self) -> Cell;
    /// Appends the keys whose values differ from `reference`'s, or from the
    /// defaults without one (or with one of another figure's type).
    fn write_pairs(&self, reference: Option<&dyn AnyParams>, pairs: &mut Pairs);
    /// The readouts and the memory bar of a plan (plan A's, while comparing).
    fn compared(&self) -> Compared;
    /// The bytes a parameter of the shared scenario, for the figures that have one.
    fn bytes_per_param(&self) -> Option<BytesPerParam>;
    fn set_bytes_per_param(&mut self, bytes: BytesPerParam);
    /// The values of its assumptions (model, GPU, ...), by key.
    fn assumptions(&self) -> Vec<(&'static str, Assumed)>;
    /// Takes another figure's assumption, where it assumes that key; whether it changed.
    fn assume(&mut self, key: &str, value: Assumed) -> bool;
}

/// A figure's parameters, as the shell keeps them.
pub type Cell = Box<dyn AnyParams>;

/// A plan's readouts and memory bar, for the comparison of two plans.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    pub readouts: Vec<ReadoutData>,
    pub memory: Option<MemoryBarData>,
}

impl<P: Params> AnyParams for P {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn clone_cell(&self) -> Cell {
        Box::new(self.clone())
    }

    fn write_pairs(&self, reference: Option<&dyn AnyParams>, pairs: &mut Pairs) {
        match reference.and_then(|r| r.as_any().downcast_ref::<P>()) {
            Some(reference) => self.write_against(reference, pairs),
            None => self.write(pairs),
        }
    }

    fn compared(&self) -> Compared {
        let data = self.data();
        Compared {
            readouts: P::readouts(&data),
            memory: P::memory(&data),
        }
    }

    fn bytes_per_param(&self) -> Option<BytesPerParam> {
        self.scenario().map(|s| s.bytes_per_param)
    }

    fn set_bytes_per_param(&mut self, bytes: BytesPerParam) {
        if let Some(scenario) = self.scenario_mut() {
            scenario.bytes_per_param = bytes;
        }
    }

    fn assumptions(&self) -> Vec<(&'static str, Assumed)> {
        param::assumptions(P::TABLE, self)
    }

    fn assume(&mut self, key: &str, value: Assumed) -> bool {
        param::assume(P::TABLE, self, key, value)
    }
}

/// A figure's parameters as its own code sees them: the shell's signal,
/// read and moved as the figure's type. Copy, like a signal.
pub struct Cells<P> {
    cell: RwSignal<Cell>,
    /// Reads go through this relay, if any: for a part that may be dropped ([`Cells::scoped`]).
    relay: Option<Scoped<RwSignal<Cell>>>,
    typed: PhantomData<fn() -> P>,
}

impl<P> Clone for Cells<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Cells<P> {}

impl<P: Params> Cells<P> {
    /// `cell` holds a `P`: the figure's `start` put it there.
    pub fn new(cell: RwSignal<Cell>) -> Self {
        Self {
            cell,
            relay: None,
            typed: PhantomData,
        }
    }

    /// The same parameters, read by a part that may be dropped: through a
    /// relay made under the current owner, which leaves with it
    /// (`hooks::use_scoped`). Writes go to the shell's signal as before.
    pub fn scoped(self) -> Self {
        Self {
            relay: Some(use_scoped(self.cell)),
            ..self
        }
    }

    /// Reads the parameters, tracked.
    pub fn with<R>(&self, f: impl FnOnce(&P) -> R) -> R {
        track(self.cell, self.relay);
        self.with_untracked(f)
    }

    pub fn with_untracked<R>(&self, f: impl FnOnce(&P) -> R) -> R {
        self.cell.with_untracked(|cell| typed(cell, f))
    }

    pub fn get(&self) -> P {
        self.with(P::clone)
    }

    pub fn get_untracked(&self) -> P {
        self.with_untracked(P::clone)
    }

    /// Moves the parameters and tells whatever reads them.
    pub fn update(&self, f: impl FnOnce(&mut P)) {
        self.cell.update(|cell| {
            if let Some(params) = cell.as_mut().as_any_mut().downcast_mut::<P>() {
                f(params);
            }
        });
    }
}

/// Tracks the parameters: through the relay, if any. Not generic, so that
/// the many reads of a figure's code each call it rather than copy it.
#[inline(never)]
fn track(cell: RwSignal<Cell>, relay: Option<Scoped<RwSignal<Cell>>>) {
    match relay {
        Some(relay) => relay.track(),
        None => cell.track(),
    }
}

/// `f` of the parameters in `cell`; a cell of another type (which `start`
/// never makes) reads as the defaults rather than stopping the page.
fn typed<P: Params, R>(cell: &Cell, f: impl FnOnce(&P) -> R) -> R {
    match cell.as_ref().as_any().downcast_ref::<P>() {
        Some(params) => f(params),
        None => f(&P::default()),
    }
}
