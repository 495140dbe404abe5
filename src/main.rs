//! Entry point: install the panic message and mount the app.

fn main() {
    parallax::app::start();
}
