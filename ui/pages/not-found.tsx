export function NotFound() {
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>
        There is no page here. Try the <a href="/map">map</a>.
      </p>
    </section>
  );
}
