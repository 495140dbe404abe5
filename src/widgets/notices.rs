//! Plain-language notes about URL parameters that could not be used as given.

use leptos::prelude::*;

use crate::model::query::Notice;

#[component]
pub fn Notices(
    /// The notes to show; nothing is drawn when empty.
    notices: Vec<Notice>,
) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        view! {
            <ul class="notices" role="status">
                {notices
                    .into_iter()
                    .map(|notice| view! { <li class="notices__item" data-notice=notice.key>{notice.message}</li> })
                    .collect_view()}
            </ul>
        }
    })
}
