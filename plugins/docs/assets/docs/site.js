// The index page of a `strata docs` site: the lineage graph, drawn by
// Cytoscape.js from window.STRATA_DOCS (graph.js: nodes already placed by
// `strata docs`, edges by node index, column lineage), and the search over
// names and column names. Nothing is fetched: the site works from file://.
(function () {
  'use strict';
  const data = window.STRATA_DOCS;
  const nodes = data.nodes;
  const edges = data.edges;
  // A large graph (a few thousand elements) gives Cytoscape its nodes only:
  // creating thousands of edge elements would take it seconds. Its edges
  // are drawn as plain lines on a canvas under Cytoscape's, following its
  // pan and zoom (see `EdgeLayer`).
  const big = nodes.length + edges.length > 1500;
  const graphElement = document.getElementById('graph');
  const graphStatus = document.getElementById('graph-status');
  const searchStatus = document.getElementById('search-status');
  const panel = document.getElementById('focus');
  const clearButton = document.getElementById('clear');
  const indexOf = new Map(nodes.map((n, i) => [n.id, i]));

  // ------------------------------------------------------------ the graph
  const colors = {
    line: '#9aa5b1', up: '#2563eb', down: '#ea580c', column: '#7c3aed',
    source: '#dcebf7', model: '#ffffff', contract: '#fdf0d5', test: '#e8f5e9',
  };
  const style = [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle', width: 'data(w)', height: 30, 'background-color': colors.model,
        label: 'data(label)', 'font-size': 12, 'font-family': 'system-ui, sans-serif',
        'text-valign': 'center', 'text-halign': 'center', 'min-zoomed-font-size': 7,
        'border-width': 1, 'border-color': '#8795a1', color: '#1f2933',
      },
    },
    { selector: 'node.source', style: { shape: 'barrel', 'background-color': colors.source } },
    { selector: 'node.contract', style: { shape: 'hexagon', 'background-color': colors.contract } },
    { selector: 'node.test', style: { shape: 'tag', 'background-color': colors.test } },
    {
      selector: 'edge',
      style: {
        'curve-style': 'bezier', width: 1.3, 'line-color': colors.line,
        'target-arrow-shape': 'triangle', 'target-arrow-color': colors.line, 'arrow-scale': 0.8,
        label: 'data(label)', 'font-size': 9, color: '#52606d', 'text-rotation': 'autorotate',
        'text-background-color': '#ffffff', 'text-background-opacity': 0.85, 'min-zoomed-font-size': 8,
      },
    },
    { selector: 'edge.dashed', style: { 'line-style': 'dashed' } },
    { selector: '.faded', style: { opacity: 0.12 } },
    { selector: 'node.up', style: { 'border-color': colors.up, 'border-width': 2 } },
    { selector: 'node.down', style: { 'border-color': colors.down, 'border-width': 2 } },
    { selector: 'edge.up', style: { 'line-color': colors.up, 'target-arrow-color': colors.up, width: 2 } },
    { selector: 'edge.down', style: { 'line-color': colors.down, 'target-arrow-color': colors.down, width: 2 } },
    { selector: 'node.focus', style: { 'border-width': 4, 'border-color': '#111827' } },
    { selector: 'node.match', style: { 'background-color': '#fde68a', 'border-color': '#b45309', 'border-width': 3 } },
    { selector: '.column', style: { 'border-color': colors.column, 'border-width': 3 } },
    { selector: 'edge.column', style: { 'line-color': colors.column, 'target-arrow-color': colors.column, width: 3 } },
  ];
  const elements = nodes.map((n) => ({
    group: 'nodes',
    data: { id: n.id, label: n.label, kind: n.kind, url: n.url, w: n.w },
    classes: n.kind,
    position: { x: n.x, y: n.y },
  }));
  if (!big) {
    edges.forEach((e, i) => elements.push({
      group: 'edges',
      data: { id: 'e' + i, source: nodes[e.from].id, target: nodes[e.to].id, kind: e.kind, label: e.label },
      classes: e.kind === 'contract' || e.kind === 'test' ? 'dashed' : '',
    }));
  }
  const cy = cytoscape({
    container: graphElement,
    elements,
    style,
    layout: { name: 'preset', fit: true, padding: 20 },
    minZoom: 0.02,
    maxZoom: 3,
    autoungrabify: true,
    autounselectify: true,
    boxSelectionEnabled: false,
    textureOnViewport: big,
    pixelRatio: big ? 1 : 'auto',
  });
  window.strataGraph = cy;

  // The edges of a large graph: straight lines between node centres on a
  // canvas under Cytoscape's, redrawn at each change of the viewport or of
  // what is lit up.
  function EdgeLayer() {
    const canvas = document.createElement('canvas');
    canvas.className = 'edges';
    graphElement.before(canvas);
    let scheduled = false;
    let lit = null;
    const draw = () => {
      scheduled = false;
      const ratio = window.devicePixelRatio || 1;
      const width = graphElement.clientWidth;
      const height = graphElement.clientHeight;
      canvas.style.left = graphElement.offsetLeft + graphElement.clientLeft + 'px';
      canvas.style.top = graphElement.offsetTop + graphElement.clientTop + 'px';
      canvas.style.width = width + 'px';
      canvas.style.height = height + 'px';
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      const ctx = canvas.getContext('2d');
      const zoom = cy.zoom();
      const pan = cy.pan();
      ctx.setTransform(zoom * ratio, 0, 0, zoom * ratio, pan.x * ratio, pan.y * ratio);
      const stroke = (which, color, width) => {
        ctx.beginPath();
        for (const i of which) {
          const a = nodes[edges[i].from];
          const b = nodes[edges[i].to];
          ctx.moveTo(a.x, a.y);
          ctx.lineTo(b.x, b.y);
        }
        ctx.strokeStyle = color;
        ctx.lineWidth = width / zoom;
        ctx.stroke();
      };
      ctx.globalAlpha = lit ? 0.12 : 0.6;
      stroke(edges.keys(), colors.line, 1);
      ctx.globalAlpha = 1;
      if (lit) {
        stroke(lit.up, colors.up, 2);
        stroke(lit.down, colors.down, 2);
        stroke(lit.column, colors.column, 3);
      }
      window.strataEdgesDrawn = edges.length;
    };
    this.show = (marks) => {
      lit = marks;
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(draw);
      }
    };
    cy.on('viewport resize', () => this.show(lit));
    window.addEventListener('resize', () => this.show(lit));
    draw();
  }
  const edgeLayer = big ? new EdgeLayer() : null;

  // What each node reads and what reads it: edge indices by node.
  const edgesInto = nodes.map(() => []);
  const edgesOutOf = nodes.map(() => []);
  edges.forEach((e, i) => {
    edgesInto[e.to].push(i);
    edgesOutOf[e.from].push(i);
  });

  // Every node and edge upstream (or downstream) of node `start`.
  function reach(start, into) {
    const found = { nodes: new Set(), edges: new Set() };
    const todo = [start];
    while (todo.length) {
      const at = todo.pop();
      for (const i of (into ? edgesInto : edgesOutOf)[at]) {
        found.edges.add(i);
        const next = into ? edges[i].from : edges[i].to;
        if (!found.nodes.has(next)) {
          found.nodes.add(next);
          todo.push(next);
        }
      }
    }
    return found;
  }

  // Light up, or (null) nothing: { focus, up, down, column } where each
  // of up, down and column is { nodes, edges } (sets of indices).
  function mark(marks) {
    cy.batch(() => {
      cy.elements().removeClass('faded up down focus column');
      if (!marks) return;
      const nodeClass = (set, name) => { for (const i of set) cy.getElementById(nodes[i].id).addClass(name); };
      const edgeClass = (set, name) => { for (const i of set) cy.getElementById('e' + i).addClass(name); };
      const litNodes = new Set([marks.focus, ...marks.up.nodes, ...marks.down.nodes, ...marks.column.nodes]);
      cy.nodes().filter((n) => !litNodes.has(indexOf.get(n.id()))).addClass('faded');
      nodeClass(marks.up.nodes, 'up');
      nodeClass(marks.down.nodes, 'down');
      nodeClass(marks.column.nodes, 'column');
      cy.getElementById(nodes[marks.focus].id).addClass('focus');
      if (!big) {
        const litEdges = new Set([...marks.up.edges, ...marks.down.edges, ...marks.column.edges]);
        cy.edges().filter((e) => !litEdges.has(Number(e.id().slice(1)))).addClass('faded');
        edgeClass(marks.up.edges, 'up');
        edgeClass(marks.down.edges, 'down');
        edgeClass(marks.column.edges, 'column');
      }
    });
    if (edgeLayer) {
      edgeLayer.show(marks && { up: marks.up.edges, down: marks.down.edges, column: marks.column.edges });
    }
  }

  const none = () => ({ nodes: new Set(), edges: new Set() });
  function lineage(index) {
    return { focus: index, up: reach(index, true), down: reach(index, false), column: none() };
  }

  let pinned = null;

  function pin(index) {
    pinned = lineage(index);
    mark(pinned);
    clearButton.disabled = false;
    showPanel(index);
    // Frame the node and its lineage, not closer than 1:1.
    const lit = [index, ...pinned.up.nodes, ...pinned.down.nodes].map((i) => cy.getElementById(nodes[i].id));
    const frame = cy.collection(lit);
    cy.animate({ fit: { eles: frame, padding: 40 } }, {
      duration: 200,
      complete: () => { if (cy.zoom() > 1) cy.zoom({ level: 1, position: cy.getElementById(nodes[index].id).position() }); },
    });
  }

  function unpin() {
    pinned = null;
    mark(null);
    clearButton.disabled = true;
    panel.hidden = true;
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  }

  function element(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  }

  // The pinned node's panel: its page, its columns; a column traces its
  // lineage.
  function showPanel(index) {
    const n = nodes[index];
    panel.replaceChildren();
    const title = element('h3');
    const link = element('a', n.label);
    link.href = n.url;
    title.append(element('span', n.kind, 'kind ' + n.kind), ' ', link);
    panel.append(title);
    panel.append(element('p', pinned.up.nodes.size + ' upstream, ' + pinned.down.nodes.size + ' downstream', 'hint'));
    if (n.columns.length) {
      panel.append(element('p', 'Columns (click one to trace its lineage):', 'hint'));
      const list = element('ul', undefined, 'columns');
      for (const [name, type] of n.columns) {
        const button = element('button', name);
        button.type = 'button';
        button.addEventListener('click', () => {
          for (const b of list.querySelectorAll('button')) b.classList.toggle('active', b === button);
          traceColumn(index, name);
        });
        const item = element('li');
        item.append(button, ' ', element('span', type, 'how'));
        list.append(item);
      }
      panel.append(list);
    }
    panel.append(element('div', undefined, 'trace'));
    panel.hidden = false;
  }

  // Column lineage, both ways, from `data.lineage` ([from, column, to,
  // column, how]), keyed by "node index TAB column".
  const columnsInto = new Map();
  const columnsOutOf = new Map();
  for (const [from, fromColumn, to, toColumn, how] of data.lineage) {
    const a = from + '\t' + fromColumn;
    const b = to + '\t' + toColumn;
    if (!columnsInto.has(b)) columnsInto.set(b, []);
    if (!columnsOutOf.has(a)) columnsOutOf.set(a, []);
    columnsInto.get(b).push({ key: a, how });
    columnsOutOf.get(a).push({ key: b, how });
  }

  function walkColumns(start, next) {
    const seen = new Map();
    const todo = [start];
    while (todo.length) {
      const key = todo.pop();
      for (const step of next.get(key) || []) {
        if (!seen.has(step.key)) {
          seen.set(step.key, step.how);
          todo.push(step.key);
        }
      }
    }
    return seen;
  }

  function traceColumn(index, column) {
    const start = index + '\t' + column;
    const up = walkColumns(start, columnsInto);
    const down = walkColumns(start, columnsOutOf);
    const involved = new Set([index]);
    for (const key of [...up.keys(), ...down.keys()]) involved.add(Number(key.split('\t')[0]));
    const traced = { nodes: involved, edges: new Set() };
    edges.forEach((e, i) => { if (involved.has(e.from) && involved.has(e.to)) traced.edges.add(i); });
    pinned.column = traced;
    mark(pinned);
    const trace = panel.querySelector('.trace');
    trace.replaceChildren();
    for (const [title, found] of [['Computed from', up], ['Flows into', down]]) {
      trace.append(element('h4', title));
      const items = element('ul');
      if (found.size === 0) items.append(element('li', 'nothing', 'none'));
      for (const [key, how] of [...found].sort()) {
        const [i, name] = key.split('\t');
        const item = element('li', nodes[Number(i)].label + '.' + name + ' ');
        item.append(element('span', how, 'how'));
        items.append(item);
      }
      trace.append(items);
    }
  }

  const indexOfTarget = (event) => indexOf.get(event.target.id());
  cy.on('tap', 'node', (event) => { location.href = event.target.data('url'); });
  cy.on('cxttap taphold', 'node', (event) => pin(indexOfTarget(event)));
  cy.on('tap', (event) => { if (event.target === cy && pinned) unpin(); });
  cy.on('mouseover', 'node', (event) => {
    if (!pinned) mark(lineage(indexOfTarget(event)));
    graphElement.style.cursor = 'pointer';
  });
  cy.on('mouseout', 'node', () => {
    if (!pinned) mark(null);
    graphElement.style.cursor = '';
  });
  document.getElementById('fit').addEventListener('click', () => cy.fit(undefined, 20));
  clearButton.addEventListener('click', unpin);

  function focusFromHash() {
    const m = /^#focus=(.+)$/.exec(location.hash);
    const index = m ? indexOf.get(decodeURIComponent(m[1])) : undefined;
    if (index !== undefined) pin(index);
  }
  window.addEventListener('hashchange', focusFromHash);

  // ------------------------------------------------------------- search
  // The lists come after this script in the page: they are looked up
  // when searched.
  const names = nodes.map((n) => n.name.toLowerCase());

  // The nodes matching `query`: by name, or by the columns they have.
  function matches(query) {
    const q = query.trim().toLowerCase();
    const found = [];
    if (!q) return found;
    nodes.forEach((n, i) => {
      const columns = n.columns.map((c) => c[0]).filter((c) => c.toLowerCase().includes(q));
      if (names[i].includes(q) || columns.length) found.push({ index: i, columns });
    });
    return found;
  }

  function showSearch(query) {
    const q = query.trim();
    const found = matches(q);
    const hit = new Map(found.map((f) => [nodes[f.index].id, f.columns]));
    for (const tr of document.querySelectorAll('tr[data-id]')) {
      const columns = hit.get(tr.dataset.id);
      tr.hidden = q !== '' && columns === undefined;
      let note = tr.querySelector('.hits');
      if (columns && columns.length) {
        if (!note) {
          note = element('span', undefined, 'hits');
          tr.cells[0].append(' ', note);
        }
        note.textContent = 'column ' + columns.join(', ');
      } else if (note) {
        note.remove();
      }
    }
    for (const section of document.querySelectorAll('section.catalogue')) {
      section.hidden = q !== '' && !section.querySelector('tr[data-id]:not([hidden])');
    }
    cy.batch(() => {
      cy.nodes().removeClass('match');
      for (const f of found) cy.getElementById(nodes[f.index].id).addClass('match');
    });
    const byColumn = found.filter((f) => f.columns.length).length;
    searchStatus.textContent = q === '' ? ''
      : found.length === 0 ? 'Nothing matches “' + q + '”.'
      : found.length + ' match' + (found.length === 1 ? '' : 'es') + ' for “' + q + '”'
        + (byColumn ? ', ' + byColumn + ' by a column' : '') + '. Enter shows the first in the graph.';
    return found;
  }

  const input = document.getElementById('search');
  input.addEventListener('input', () => showSearch(input.value));
  input.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const found = showSearch(input.value);
    if (found.length) pin(found[0].index);
  });

  // Ready once the first frame with the graph is on the screen.
  cy.one('render', () => requestAnimationFrame(() => {
    graphStatus.textContent = nodes.length + ' nodes, ' + edges.length + ' edges';
    window.strataReady = performance.now();
  }));
  focusFromHash();
  const query = new URLSearchParams(location.search).get('q');
  if (query) {
    input.value = query;
    document.addEventListener('DOMContentLoaded', () => showSearch(query));
  }
}());
