//! Questions the reader answers before the figure tells: a prediction with
//! choices, and a number checked against a tolerance. Answers come from the
//! estimator; nothing here knows the subject.

use leptos::prelude::*;

/// Predict, then reveal: the reader picks an option; "Reveal" shows
/// whether it was right and why. The answer is written into the fieldset
/// (`data-answer`) and `src/boot.js` reveals it, so nothing here runs after
/// the question is drawn.
#[component]
pub fn Prediction(
    /// Stable id, naming the radio group and for tests.
    id: &'static str,
    /// The question.
    prompt: &'static str,
    /// (id, text) of each option.
    options: Vec<(&'static str, &'static str)>,
    /// The id of the right option, computed.
    correct: &'static str,
    /// Why, shown with the answer, computed.
    explanation: String,
) -> impl IntoView {
    let name = format!("predict-{id}");
    view! {
        <fieldset class="question" data-prediction=id data-answer=correct>
            <legend class="question__prompt">{prompt}</legend>
            <div class="question__options">
                {options
                    .into_iter()
                    .map(|(id, text)| {
                        view! {
                            <label class="question__option">
                                <input type="radio" name=name.clone() value=id/>
                                {text}
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
            <button type="button" class="button" disabled>"Reveal"</button>
            <p class="question__answer" role="status" hidden><strong></strong>{explanation}</p>
        </fieldset>
    }
}

/// A number to work out: the question, a box, the hint for after a wrong
/// answer and the worked solution on demand. The answer is written into
/// the form (`data-answer`, in `unit`, with `data-tolerance`), and
/// `src/boot.js` checks what the reader types, in the ways people write
/// numbers (`17.5 GB`, `27.3%`, `3/11`, `1,024`, `1 024`, `17,5`,
/// `8.4 × 10^23`, `m = 28`, `16 layers`), and remembers the questions
/// answered right; nothing here runs after the form is drawn. The box is a
/// plain text box: a decimal keypad has neither `%` nor `/`.
#[component]
pub fn NumberQuestion(
    /// Stable id, for remembering progress and for tests.
    id: &'static str,
    /// The question.
    prompt: &'static str,
    /// The right answer, computed, in the unit the prompt asks for.
    answer: f64,
    /// The unit the prompt asks for (`GB`, `MB`), which the reader may type after the number; empty for a plain number.
    unit: &'static str,
    /// The answer is in units of 10^power (0: plain), so that a reader may
    /// also type it whole (`8.4e23` for 8.4 × 10²³).
    #[prop(optional)]
    power: i32,
    /// Accepted distance from the answer; 0 asks for the exact answer (a count).
    tolerance: f64,
    /// A nudge shown after a wrong answer.
    hint: &'static str,
    /// The worked solution, computed.
    solution: String,
) -> impl IntoView {
    let input_id = format!("question-{id}");
    view! {
        <form
            class="question"
            data-question=id
            data-answer=answer.to_string()
            data-unit=unit
            data-tolerance=tolerance.to_string()
            data-power=(power != 0).then(|| power.to_string())
        >
            <label class="question__prompt" for=input_id.clone()>{prompt}</label>
            <div class="question__row">
                <input
                    id=input_id
                    class="control__text question__input"
                    type="text"
                    autocomplete="off"
                />
                <button type="submit" class="button">"Check"</button>
            </div>
            <p class="question__feedback" role="status" data-verdict="none"></p>
            <p class="question__hint" hidden>{hint}</p>
            <details class="question__solution">
                <summary>"Show the worked solution"</summary>
                <p>{solution}</p>
            </details>
        </form>
    }
}
