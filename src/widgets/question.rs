//! Questions the reader answers before the figure tells: a prediction with
//! choices, and a number checked against a tolerance. Answers come from the
//! estimator through signals; nothing here knows the subject.

use leptos::prelude::*;

use crate::model::number::parse_number;

/// Remembers which questions were answered right, in `localStorage` when the
/// browser allows it (and silently not when it does not).
fn remember(key: &str) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        _ = storage.set_item(&format!("parallax:{key}"), "solved");
    }
}

fn remembered(key: &str) -> bool {
    // The page drawn at build time (tests/page.rs) has no reader yet.
    if cfg!(not(target_arch = "wasm32")) {
        return false;
    }
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|storage| storage.get_item(&format!("parallax:{key}")).ok().flatten())
        .is_some()
}

/// Predict, then reveal: the reader picks an option; the answer and the
/// reason show only after "Reveal".
#[component]
pub fn Prediction(
    /// Stable id, naming the radio group and for tests.
    id: &'static str,
    /// The question.
    prompt: &'static str,
    /// (id, text) of each option.
    options: Vec<(&'static str, &'static str)>,
    /// The id of the right option, computed.
    #[prop(into)]
    correct: Signal<&'static str>,
    /// Why, shown with the answer, computed.
    #[prop(into)]
    explanation: Signal<String>,
) -> impl IntoView {
    let choice = RwSignal::new(None::<&'static str>);
    let revealed = RwSignal::new(false);
    let name = format!("predict-{id}");
    view! {
        <fieldset class="question" data-prediction=id>
            <legend class="question__prompt">{prompt}</legend>
            <div class="question__options">
                {options
                    .into_iter()
                    .map(|(id, text)| {
                        view! {
                            <label class="question__option">
                                <input
                                    type="radio"
                                    name=name.clone()
                                    value=id
                                    on:change=move |_| choice.set(Some(id))
                                    prop:disabled=move || revealed.get()
                                />
                                {text}
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
            <button
                type="button"
                class="button"
                prop:disabled=move || choice.with(Option::is_none) || revealed.get()
                on:click=move |_| revealed.set(true)
            >
                "Reveal"
            </button>
            <Show when=move || revealed.get()>
                <p class="question__answer" role="status">
                    <strong>
                        {move || if choice.get() == Some(correct.get()) { "You predicted right. " } else { "Not quite. " }}
                    </strong>
                    {move || explanation.get()}
                </p>
            </Show>
        </fieldset>
    }
}

/// A number to work out, checked against a tolerance, with a hint after a
/// wrong answer and the worked solution on demand.
#[component]
pub fn NumberQuestion(
    /// Stable id, for remembering progress and for tests.
    id: &'static str,
    /// The question.
    prompt: &'static str,
    /// The right answer, computed, in the unit the prompt asks for.
    #[prop(into)]
    answer: Signal<f64>,
    /// Accepted distance from the answer.
    tolerance: f64,
    /// A nudge shown after a wrong answer.
    hint: &'static str,
    /// The worked solution, computed.
    #[prop(into)]
    solution: Signal<String>,
) -> impl IntoView {
    #[derive(Clone, Copy, PartialEq)]
    enum Verdict {
        Unanswered,
        Right,
        Wrong,
        Unreadable,
    }
    let verdict = RwSignal::new(if remembered(id) {
        Verdict::Right
    } else {
        Verdict::Unanswered
    });
    let typed = RwSignal::new(String::new());
    let input_id = format!("question-{id}");
    let check = move || {
        let outcome = match parse_number(&typed.get_untracked()) {
            Ok(value) if (value - answer.get_untracked()).abs() <= tolerance => Verdict::Right,
            Ok(_) => Verdict::Wrong,
            Err(_) => Verdict::Unreadable,
        };
        if outcome == Verdict::Right {
            remember(id);
        }
        verdict.set(outcome);
    };
    view! {
        <form
            class="question"
            data-question=id
            on:submit=move |event| {
                event.prevent_default();
                check();
            }
        >
            <label class="question__prompt" for=input_id.clone()>{prompt}</label>
            <div class="question__row">
                <input
                    id=input_id
                    class="control__text question__input"
                    type="text"
                    inputmode="decimal"
                    autocomplete="off"
                    prop:value=move || typed.get()
                    on:input=move |event| typed.set(event_target_value(&event))
                />
                <button type="submit" class="button">"Check"</button>
            </div>
            <p class="question__feedback" role="status" data-verdict=move || match verdict.get() {
                Verdict::Unanswered => "none",
                Verdict::Right => "right",
                Verdict::Wrong => "wrong",
                Verdict::Unreadable => "unreadable",
            }>
                {move || match verdict.get() {
                    Verdict::Unanswered => String::new(),
                    Verdict::Right => "Right.".to_string(),
                    Verdict::Wrong => format!("Not yet. Hint: {hint}"),
                    Verdict::Unreadable => "Type a number, such as 17.5 or 2e9.".to_string(),
                }}
            </p>
            <details class="question__solution">
                <summary>"Show the worked solution"</summary>
                <p>{move || solution.get()}</p>
            </details>
        </form>
    }
}
