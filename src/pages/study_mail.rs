//! The seed mail beside the model on the Studies page (issue 10): when the
//! study run is a preset that a table of assets/seeds/tables.toml names,
//! every mail cell gets the mail's change beside the model's and whether
//! they agree, with the table's known gap and the agreement figures, as
//! `schedlab reproduce` prints them. The rules are the engine's
//! (`lab::reproduce`); this module only lays them out.
//!
//! One table per mail table rather than columns in the result table: a
//! mail's baseline need not be the study's (seed 004's PLACE_BONUS tables
//! measure against the study's second configuration).

use leptos::prelude::*;
use schedlab_engine::lab::reproduce::{self, MailTable, Summary, TableReport, Verdict};
use schedlab_engine::lab::study::{Table, SAME_SCHEDULES_MEANS};

use super::study::use_study;

thread_local! {
    /// Every transcribed table, parsed the first time a seed study is shown.
    static MAIL_TABLES: Vec<MailTable> = reproduce::tables();
}

/// The mail tables that name `study`, each beside `table`.
pub fn reports(study: &str, table: &Table) -> Vec<TableReport> {
    MAIL_TABLES.with(|all| all.iter().filter(|t| t.study == study).map(|t| reproduce::compare_table(t, Some(table))).collect())
}

/// The class and the words of a verdict (None: the model has not run the
/// cell). Words and a symbol as well as a colour, for colour-blind readers.
pub fn mark(v: Option<Verdict>) -> (&'static str, &'static str) {
    match v {
        None => ("unrun", "not run"),
        Some(Verdict::Agrees) => ("agree", "✓ agrees"),
        Some(Verdict::AgreesWithinNoise) => ("agree", "✓ agrees (model within noise)"),
        Some(Verdict::Disagrees) => ("disagree", "✗ disagrees"),
        Some(Verdict::SmallButLarge) => ("unclear", "– mail: no clear effect (mail <5 %, model >15 %)"),
        Some(Verdict::NoClearEffect) => ("unclear", "– mail: no clear effect"),
    }
}

fn pct(x: f64, noise: Option<f64>) -> String {
    format!("{x:+.2} ({})", noise.map_or("-".into(), |n| format!("{n:.2}")))
}

fn table_view(r: TableReport) -> impl IntoView {
    let ncmp = r.configs.len().saturating_sub(1).max(1);
    let rows = r
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let config = r.configs.get(1 + i % ncmp).cloned().unwrap_or_default();
            let (class, words) = mark(c.verdict());
            let same = c.model.is_some_and(|m| m.same_schedules);
            let mail_title = format!("{}: printed std {}", c.mail_label, c.mail_std.map_or("none".into(), |s| format!("{s:.2} %")));
            let (model, model_title) = match c.model {
                Some(m) => (pct(m.change, Some(m.noise)), format!("{config}: std {:.2} % over the seeds", m.std)),
                None => ("not run".to_string(), String::new()),
            };
            view! {
                <tr data-testid="study-mail-cell" data-case=c.case.clone() data-load=c.load.clone() data-config=config data-verdict=class>
                    <td>{c.case.clone()}</td>
                    <td>{c.load.clone()}</td>
                    <td>{c.column.clone()}</td>
                    <td class="num" data-testid="mail-change" title=mail_title>{pct(c.mail_change, c.mail_noise)}</td>
                    <td class="num" data-testid="model-change" title=model_title>{model}</td>
                    <td class=format!("mark {class}") data-testid="mail-verdict" data-same-schedules=same.to_string()>
                        {words}
                        {same.then(|| view! { <span class="same" title=SAME_SCHEDULES_MEANS>" · same schedules"</span> })}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h4>{format!("seed {} — {}", r.seed, r.title)}</h4>
        <p class="muted">{format!("{} · {}", r.source, r.configs.join(" → "))}</p>
        <table class="study-table mail-table" data-testid="study-mail-table">
            <thead><tr>
                <th scope="col">"case"</th><th scope="col">"load"</th><th scope="col">"column"</th>
                <th scope="col">"mail %(noise)"</th><th scope="col">"model %(noise)"</th><th scope="col">""</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {(!r.gap.is_empty()).then(|| view! {
            <p class="mail-gap" data-testid="study-mail-gap"><strong>{reproduce::GAP_CAPTION}": "</strong>{r.gap.clone()}</p>
        })}
    }
}

/// The mail tables of the study shown, beside its result (nothing for a
/// study that is not a seed preset).
#[component]
pub fn MailBeside() -> impl IntoView {
    let st = use_study();
    move || {
        let (Some(id), Some(t)) = (st.ran.get(), st.table.get()) else {
            return ().into_any();
        };
        let reports = reports(id, &t);
        let Some(seed) = reports.first().map(|r| r.seed.clone()) else {
            return ().into_any();
        };
        let summary = Summary::of(reports.iter().flat_map(|r| r.cells.iter()));
        let summary = format!(
            "{}\n{}{}",
            reproduce::SUMMARY_CAPTION,
            reproduce::summary_header(),
            reproduce::summary_line(&seed, summary)
        );
        view! {
            <section class="mail-beside" data-testid="study-mail-beside">
                <h3>"The mail beside the model"</h3>
                <p class="muted">
                    "As schedlab reproduce prints it: every change with positive = better; noise is the std of the difference of the two means. \
                     A mail cell shows a clear effect when its change exceeds twice its noise (5 % where the mail printed no std); \
                     the model agrees when its change has the same sign. Cells not run yet count as not modelled. \
                     \"Same schedules\": the model's two configurations switched alike on every seed, so the change never acted on that load."
                </p>
                {reports.into_iter().map(table_view).collect_view()}
                <pre data-testid="study-mail-summary">{summary}</pre>
            </section>
        }
        .into_any()
    }
}
