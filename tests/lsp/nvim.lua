-- Neovim (0.7) as a real client of `strata lsp`, headless: open FILE,
-- attach the server, wait for its diagnostics, ask for hover and
-- definition, apply a quick fix and the formatting, and write what it saw
-- to OUT as JSON for tests/lsp.rs to check.
--
--   STRATA=strata FILE=shop.strata OUT=out.json nvim --headless -u NONE -i NONE -n -c 'luafile nvim.lua'

local out = {}

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv('OUT'))
  vim.cmd('qa!')
end

local function main()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('FILE')))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'strata',
    cmd = { os.getenv('STRATA'), 'lsp' },
    root_dir = vim.fn.fnamemodify(os.getenv('FILE'), ':p:h'),
  })
  assert(id, 'start_client failed')
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)

  local function diagnostics()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local lsp = (d.user_data or {}).lsp or {}
      table.insert(list, {
        code = d.code or lsp.code,
        lnum = d.lnum,
        col = d.col,
        end_lnum = d.end_lnum,
        end_col = d.end_col,
        severity = d.severity,
      })
    end
    return list
  end

  local function request(method, params)
    local r = vim.lsp.buf_request_sync(buf, method, params, 10000)
    if not r or not r[id] then
      return nil, 'no answer to ' .. method
    end
    return r[id].result, r[id].error
  end

  local function at(line, character)
    return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = character } }
  end

  -- 1. The first diagnostics.
  out.diagnosed = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostics = diagnostics()
  out.encoding = client.offset_encoding

  -- 2. Hover on `customers.country` and definition of `enriched`.
  local hover = request('textDocument/hover', at(8, 26))
  out.hover = hover and hover.contents and hover.contents.value or vim.NIL
  local def = request('textDocument/definition', at(14, 9))
  if def and def[1] then def = def[1] end
  out.definition = def or vim.NIL

  -- 3. The quick fix of the E040 typo, applied as the editor does.
  local typo
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = (d.user_data or {}).lsp or {}
    if (d.code or lsp.code) == 'E040' then
      typo = {
        range = {
          start = { line = d.lnum, character = d.col },
          ['end'] = { line = d.end_lnum, character = d.end_col },
        },
        message = d.message,
        code = 'E040',
      }
    end
  end
  assert(typo, 'no E040 among the diagnostics')
  local actions, action_error = request('textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = typo.range,
    context = { diagnostics = { typo } },
  }) or {}
  out.actions = {}
  for _, a in ipairs(actions) do table.insert(out.actions, a.title) end
  assert(actions[1], 'no code action: ' .. vim.inspect(action_error))
  vim.lsp.util.apply_workspace_edit(actions[1].edit, client.offset_encoding)
  out.fixed_line = vim.api.nvim_buf_get_lines(buf, 9, 10, false)[1]
  -- The edit reached the server through the client's didChange: the E040
  -- goes away, the E079 stays.
  out.refreshed = vim.wait(20000, function()
    for _, d in ipairs(diagnostics()) do
      if d.code == 'E040' then return false end
    end
    return true
  end, 20)
  out.after_fix = diagnostics()

  -- 4. Format the document.
  local edits = request('textDocument/formatting', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    options = { tabSize = 2, insertSpaces = true },
  })
  if edits then
    vim.lsp.util.apply_text_edits(edits, buf, client.offset_encoding)
  end
  out.formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'

  vim.lsp.stop_client(id)
  out.stopped = vim.wait(10000, function() return vim.lsp.client_is_stopped(id) end, 20)
end

local ok, err = pcall(main)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
finish()
